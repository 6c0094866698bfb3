import { Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG } from '@adintel/config';
import { redisConnectionOptions } from '@adintel/transport';
import type { AppConfig } from '../../config';
import { MeteringKeys } from './keys';

/** Injection token of metering's Redis connection: its system of record. */
export const REDIS = Symbol('REDIS');
export const InjectRedis = () => Inject(REDIS);

export function createRedis(redisUrl: string): Redis {
  const redis = new Redis({
    ...redisConnectionOptions(redisUrl),
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
    { provide: REDIS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createRedis(config.REDIS_URL) },
    { provide: MeteringKeys, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new MeteringKeys(config.REDIS_KEY_PREFIX) },
    { provide: RedisShutdown, inject: [REDIS], useFactory: (redis: Redis) => new RedisShutdown(redis) },
  ],
  exports: [REDIS, MeteringKeys],
})
export class RedisModule {}
