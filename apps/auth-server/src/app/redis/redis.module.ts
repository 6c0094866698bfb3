import { Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG } from '@adintel/config';
import { redisConnectionOptions } from '@adintel/transport';
import type { AppConfig } from '../../config';

/** Injection token of the app's Redis connection; every key it writes carries REDIS_KEY_PREFIX. */
export const REDIS = Symbol('REDIS');
export const InjectRedis = () => Inject(REDIS);

export function createRedis(config: Pick<AppConfig, 'REDIS_URL' | 'REDIS_KEY_PREFIX'>): Redis {
  const redis = new Redis({
    ...redisConnectionOptions(config.REDIS_URL),
    keyPrefix: config.REDIS_KEY_PREFIX,
    maxRetriesPerRequest: 2,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  const logger = new Logger('Redis');
  redis.on('error', (error) => logger.warn(`redis: ${error.message}`));
  return redis;
}

class RedisShutdown implements OnApplicationShutdown {
  constructor(private readonly redis: Redis) {}
  async onApplicationShutdown() {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

@Global()
@Module({
  providers: [
    { provide: REDIS, inject: [APP_CONFIG], useFactory: createRedis },
    { provide: RedisShutdown, inject: [REDIS], useFactory: (redis: Redis) => new RedisShutdown(redis) },
  ],
  exports: [REDIS],
})
export class RedisModule {}
