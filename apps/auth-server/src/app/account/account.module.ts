import { Module } from '@nestjs/common';
import { MeteringModule } from '../metering/metering.module';
import { OidcModule } from '../oidc/oidc.module';
import { OwnersModule } from '../owners/owners.module';
import { AccountSessionRepository } from './account-session.repository';
import { AccountController } from './account.controller';
import { AccountService } from './account.service';
import { AgentCredentialsVerifier } from './agent-credentials.verifier';
import { ApprovedClients } from './approved-clients';

@Module({
  imports: [OidcModule, OwnersModule, MeteringModule],
  controllers: [AccountController],
  providers: [AccountService, AccountSessionRepository, AgentCredentialsVerifier, ApprovedClients],
})
export class AccountModule {}
