import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { type Redis, REDIS } from '@adintel/redis';
import type Provider from 'oidc-provider';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../../config';
import { loadKeyMaterial, type KeyMaterial } from '../keys/key-material';
import { MeteringGateway } from '../metering/metering.gateway';
import { MeteringModule } from '../metering/metering.module';
import { OwnersModule } from '../owners/owners.module';
import { OwnersService } from '../owners/owners.service';
import { ClientLifetime } from './client-lifetime';
import { createOidcProvider } from './oidc-provider.factory';
import { InjectOidcProvider, KEY_MATERIAL, OIDC_PROVIDER } from './oidc.tokens';
import { MetadataFetchLimiter } from './metadata-fetch-limiter';
import { RegistrationRateLimiter } from './registration-rate-limiter';
import { RevocationList } from './revocation-list';
import { RevocationRateLimiter } from './revocation-rate-limiter';
import { RevokedAccessTokens } from './revoked-access-tokens';
import { TokenFailureLimiter } from './token-failure-limiter';

export { OIDC_PROVIDER, KEY_MATERIAL, InjectOidcProvider } from './oidc.tokens';

/** Tells metering about every new agent (a client that can use client_credentials), after the registration succeeded. */
@Injectable()
class AgentRegistrationListener implements OnModuleInit {
  constructor(
    @InjectOidcProvider() private readonly provider: Provider,
    private readonly metering: MeteringGateway,
  ) {}

  onModuleInit() {
    this.provider.on('registration_create.success', (_ctx, client) => {
      if (!client.grantTypeAllowed('client_credentials')) return;
      void this.metering.agentRegistered(client.clientId, client.clientName ?? null);
    });
  }
}

@Module({
  imports: [OwnersModule, MeteringModule],
  providers: [
    { provide: KEY_MATERIAL, inject: [APP_CONFIG], useFactory: (config: AppConfig) => loadKeyMaterial(config) },
    {
      provide: OIDC_PROVIDER,
      inject: [APP_CONFIG, KEY_MATERIAL, REDIS, OwnersService],
      useFactory: (config: AppConfig, keys: KeyMaterial, redis: Redis, owners: OwnersService) => createOidcProvider({ config, keys, redis, owners }),
    },
    RegistrationRateLimiter,
    TokenFailureLimiter,
    AgentRegistrationListener,
    ClientLifetime,
    RevocationList,
    RevocationRateLimiter,
    RevokedAccessTokens,
    MetadataFetchLimiter,
  ],
  exports: [OIDC_PROVIDER, KEY_MATERIAL, RegistrationRateLimiter, TokenFailureLimiter, ClientLifetime, RevocationList, RevokedAccessTokens, MetadataFetchLimiter, RevocationRateLimiter],
})
export class OidcModule {}
