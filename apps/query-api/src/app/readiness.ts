import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG } from '@adintel/config';
import type { ReadinessCheck } from '@adintel/observability';
import type { AppConfig } from '../config';
import { AD_STORE, type AdStore } from '../store/ad-store.port';

/** /readyz: the store answers and Redis (the transport) answers. */
@Injectable()
export class Readiness implements OnApplicationShutdown {
  private readonly redis: Redis;

  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.redis = new Redis(config.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.redis.on('error', () => undefined); // reported by the check itself
  }

  checks(): ReadinessCheck[] {
    return [
      { name: 'store', check: () => this.store.ping().then(() => ({ engine: this.store.engine })) },
      {
        name: 'redis',
        check: async () => {
          if (this.redis.status === 'wait' || this.redis.status === 'end') await this.redis.connect();
          return this.redis.ping();
        },
      },
    ];
  }

  onApplicationShutdown() {
    this.redis.disconnect();
  }
}
