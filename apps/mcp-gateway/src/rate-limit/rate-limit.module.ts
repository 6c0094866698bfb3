import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import { RedisModule, type Redis } from '@adintel/redis';
import type { AppConfig } from '../config';
import { RateLimiterService } from './rate-limiter.service';
import { ScanSlotsRepository } from './scan-slots.repository';
import { TokenBucketRepository } from './token-bucket.repository';

export const GATEWAY_REDIS = Symbol('GATEWAY_REDIS');

/** The gateway's data Redis: rate-limit buckets and idempotent answers. */
const GatewayRedisModule = RedisModule.register({
  token: GATEWAY_REDIS,
  inject: [APP_CONFIG],
  // Bounded commands: a Redis outage fails a request fast instead of hanging it.
  useFactory: (config: AppConfig) => ({ url: config.REDIS_URL, name: 'gateway', commandTimeoutMs: 1_000, maxRetriesPerRequest: 1 }),
});

@Module({
  imports: [GatewayRedisModule],
  providers: [
    {
      provide: TokenBucketRepository,
      inject: [GATEWAY_REDIS, APP_CONFIG],
      useFactory: (redis: Redis, config: AppConfig) => new TokenBucketRepository(redis, config.GATEWAY_KEY_PREFIX),
    },
    {
      provide: RateLimiterService,
      inject: [TokenBucketRepository, GATEWAY_REDIS, APP_CONFIG],
      useFactory: (buckets: TokenBucketRepository, redis: Redis, config: AppConfig) =>
        new RateLimiterService(buckets, new ScanSlotsRepository(redis, config.GATEWAY_KEY_PREFIX), {
          paid: { perMinute: config.RATE_LIMIT_PER_MINUTE, burst: config.RATE_LIMIT_BURST },
          freeData: { perMinute: config.FREE_RATE_LIMIT_PER_MINUTE, burst: config.FREE_RATE_LIMIT_BURST },
          // A slot outlives its call's longest path (reserve, query, settle); one cut off by a timeout keeps it that long.
          scans: { inFlight: config.SCANS_IN_FLIGHT_PER_ACCOUNT, holdMs: config.TRANSPORT_TIMEOUT_MS * 3 },
        }),
    },
  ],
  exports: [RateLimiterService, GatewayRedisModule],
})
export class RateLimitModule {}
