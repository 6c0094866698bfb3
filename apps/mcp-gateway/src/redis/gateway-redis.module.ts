import { APP_CONFIG } from '@adintel/config';
import { RedisModule } from '@adintel/redis';
import type { AppConfig } from '../config';

/** The gateway's data Redis connection (one per process): rate-limit buckets, idempotent answers, media passes, revocations. */
export const GATEWAY_REDIS = Symbol('GATEWAY_REDIS');

/** Import this for GATEWAY_REDIS; every importer shares the one connection (the same dynamic module). */
export const GatewayRedisModule = RedisModule.register({
  token: GATEWAY_REDIS,
  inject: [APP_CONFIG],
  // Bounded commands: a Redis outage fails a request fast instead of hanging it.
  useFactory: (config: AppConfig) => ({ url: config.REDIS_URL, name: 'gateway', commandTimeoutMs: 1_000, maxRetriesPerRequest: 1 }),
});
