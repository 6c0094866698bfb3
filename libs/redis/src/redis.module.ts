import { Global, Inject, Module, type DynamicModule, type InjectionToken, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { closeRedis, createRedis, type RedisConnectionOptions } from './create-redis';

/** Injection token of an app's data Redis (its system of record), as opposed to the transport's broker. */
export const REDIS = Symbol('REDIS');
export const InjectRedis = () => Inject(REDIS);

export interface RedisModuleOptions {
  /** Defaults to REDIS; an app with a second connection names its own token. */
  readonly token?: InjectionToken;
  readonly inject?: InjectionToken[];
  readonly useFactory: (...deps: never[]) => RedisConnectionOptions;
  /** Global modules let every feature module inject the connection without importing this one. */
  readonly global?: boolean;
}

class RedisShutdown implements OnApplicationShutdown {
  constructor(private readonly redis: Redis) {}
  onApplicationShutdown() {
    return closeRedis(this.redis);
  }
}

/** Provides one data-Redis connection, built from the app's validated config, closed on shutdown. */
@Global()
@Module({})
export class RedisModule {
  static register(options: RedisModuleOptions): DynamicModule {
    const token = options.token ?? REDIS;
    const factory = options.useFactory as (...deps: unknown[]) => RedisConnectionOptions;
    const shutdownToken = Symbol(`${String(token.toString())}:shutdown`);
    return {
      module: RedisModule,
      global: options.global ?? true,
      providers: [
        { provide: token, inject: options.inject ?? [], useFactory: (...deps: unknown[]) => createRedis(factory(...deps)) },
        { provide: shutdownToken, inject: [token], useFactory: (redis: Redis) => new RedisShutdown(redis) },
      ],
      exports: [token],
    };
  }
}
