import type { DynamicModule } from '@nestjs/common';
import { type Redis } from '@adintel/redis';
import { MeteringMessages, QueryMessages } from '@adintel/contracts';
import { HealthModule, type ReadinessCheck } from '@adintel/observability';
import { serviceClientToken, type ServiceClient } from '@adintel/transport';
import { AccessTokenVerifier } from '../auth/access-token-verifier';
import { AuthModule } from '../auth/auth.module';
import { InvocationModule } from '../invocation/invocation.module';
import { GATEWAY_REDIS, GatewayRedisModule } from '../redis/gateway-redis.module';

/** /healthz, and /readyz when everything a call needs answers: query, metering, the auth server's keys, Redis. */
export function readinessModule(): DynamicModule {
  const health = HealthModule.register({
    inject: [serviceClientToken('query'), serviceClientToken('metering'), AccessTokenVerifier, GATEWAY_REDIS],
    useFactory: (query: ServiceClient, metering: ServiceClient, verifier: AccessTokenVerifier, redis: Redis): ReadinessCheck[] => [
      { name: 'query', check: () => query.send(QueryMessages.ping, {}) },
      { name: 'metering', check: () => metering.send(MeteringMessages.ping, {}) },
      { name: 'auth_jwks', check: () => verifier.keysReachable() },
      { name: 'redis', check: () => redis.ping() },
    ],
  });
  return { ...health, imports: [InvocationModule, AuthModule, GatewayRedisModule] };
}
