import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { LedgerRepository } from './ledger.repository';
import { UsageController } from './usage.controller';
import { UsageService } from './usage.service';

@Module({
  imports: [AccountsModule],
  controllers: [UsageController],
  providers: [LedgerRepository, UsageService],
  exports: [UsageService],
})
export class UsageModule {}
