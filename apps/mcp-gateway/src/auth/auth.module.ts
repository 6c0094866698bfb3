import { Module } from '@nestjs/common';
import { APP_CONFIG, mcpResourceUrl } from '@adintel/config';
import type { AppConfig } from '../config';
import type { Redis } from '@adintel/redis';
import { GATEWAY_REDIS, GatewayRedisModule } from '../redis/gateway-redis.module';
import { AccessTokenVerifier } from './access-token-verifier';
import { BearerAuthGuard } from './bearer-auth.guard';
import { JwtBearerStrategy } from './bearer.strategy';
import { AuthProblems } from './challenge';
import { ProtectedResourceController } from './protected-resource.controller';
import { RevocationList } from './revocation-list';

@Module({
  imports: [GatewayRedisModule], // where the revocation stream is read
  controllers: [ProtectedResourceController],
  providers: [
    { provide: AuthProblems, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new AuthProblems(config.PUBLIC_BASE_URL) },
    {
      provide: RevocationList,
      inject: [GATEWAY_REDIS, APP_CONFIG],
      useFactory: (redis: Redis, config: AppConfig) => new RevocationList(redis, { stream: config.REVOCATION_STREAM, pollMs: config.REVOCATION_POLL_MS }),
    },
    {
      provide: AccessTokenVerifier,
      inject: [APP_CONFIG, AuthProblems, RevocationList],
      useFactory: (config: AppConfig, problems: AuthProblems, revocations: RevocationList) =>
        new AccessTokenVerifier(
          {
            jwksUrl: config.AUTH_JWKS_URL,
            issuer: config.AUTH_ISSUER,
            audience: mcpResourceUrl(config.PUBLIC_BASE_URL),
            timeoutMs: config.JWKS_TIMEOUT_MS,
            cacheMaxAgeMs: config.JWKS_CACHE_MAX_AGE_SECONDS * 1000,
            cooldownMs: config.JWKS_COOLDOWN_SECONDS * 1000,
            tokenCacheEntries: config.TOKEN_CACHE_ENTRIES,
          },
          problems,
          revocations,
        ),
    },
    JwtBearerStrategy,
    BearerAuthGuard,
  ],
  exports: [AccessTokenVerifier, BearerAuthGuard],
})
export class AuthModule {}
