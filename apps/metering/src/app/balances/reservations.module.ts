import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { BalancesModule } from './balances.module';
import { ReservationSweeper } from './reservation-sweeper';
import { ReservationsController } from './reservations.controller';
import { ReservationsService } from './reservations.service';

@Module({
  imports: [AccountsModule, BalancesModule],
  controllers: [ReservationsController],
  providers: [ReservationsService, ReservationSweeper],
  exports: [ReservationsService, ReservationSweeper],
})
export class ReservationsModule {}
