import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import type { Redis } from '@adintel/redis';
import type { AppConfig } from '../config';
import { GATEWAY_REDIS, GatewayRedisModule } from '../redis/gateway-redis.module';
import { RateLimiterService } from './rate-limiter.service';
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
      inject: [TokenBucketRepository, APP_CONFIG],
      useFactory: (buckets: TokenBucketRepository, config: AppConfig) =>
        new RateLimiterService(buckets, { perMinute: config.RATE_LIMIT_PER_MINUTE, burst: config.RATE_LIMIT_BURST }),
    },
  ],
  exports: [RateLimiterService],
})
export class RateLimitModule {}
