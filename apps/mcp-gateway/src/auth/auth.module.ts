import { Module } from '@nestjs/common';
import { APP_CONFIG, mcpResourceUrl } from '@adintel/config';
import type { AppConfig } from '../config';
import { AccessTokenVerifier } from './access-token-verifier';
import { BearerAuthGuard } from './bearer-auth.guard';
import { JwtBearerStrategy } from './bearer.strategy';
import { AuthProblems } from './challenge';
import { ProtectedResourceController } from './protected-resource.controller';

@Module({
  controllers: [ProtectedResourceController],
  providers: [
    { provide: AuthProblems, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new AuthProblems(config.PUBLIC_BASE_URL) },
    {
      provide: AccessTokenVerifier,
      inject: [APP_CONFIG, AuthProblems],
      useFactory: (config: AppConfig, problems: AuthProblems) =>
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
        ),
    },
    JwtBearerStrategy,
    BearerAuthGuard,
  ],
  exports: [AccessTokenVerifier, BearerAuthGuard],
})
export class AuthModule {}
