import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import type { Redis } from '@adintel/redis';
import type { AppConfig } from '../config';
import { GATEWAY_REDIS, GatewayRedisModule } from '../redis/gateway-redis.module';
import { RateLimiterService } from './rate-limiter.service';
import { ScanSlotsRepository } from './scan-slots.repository';
import { TokenBucketRepository } from './token-bucket.repository';

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
  exports: [RateLimiterService],
})
export class RateLimitModule {}
