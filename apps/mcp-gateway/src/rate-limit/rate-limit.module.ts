import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG } from '@adintel/config';
import { redisConnectionOptions } from '@adintel/transport';
import type { AppConfig } from '../config';
import { RateLimiterService } from './rate-limiter.service';
import { TokenBucketRepository } from './token-bucket.repository';

export const GATEWAY_REDIS = Symbol('GATEWAY_REDIS');

class RedisShutdown implements OnApplicationShutdown {
  constructor(@Inject(GATEWAY_REDIS) private readonly redis: Redis) {}
  onApplicationShutdown() {
    this.redis.disconnect();
  }
}

@Module({
  providers: [
    {
      provide: GATEWAY_REDIS,
      inject: [APP_CONFIG],
      // Bounded commands: a Redis outage fails a request fast instead of hanging it.
      useFactory: (config: AppConfig) =>
        new Redis({ ...redisConnectionOptions(config.REDIS_URL), commandTimeout: 1_000, maxRetriesPerRequest: 1 }),
    },
    RedisShutdown,
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
  exports: [RateLimiterService, GATEWAY_REDIS],
})
export class RateLimitModule {}
