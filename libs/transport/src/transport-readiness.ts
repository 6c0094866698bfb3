import { Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import type { ReadinessCheck } from '@adintel/observability';
import { closeRedis, createRedis, type Redis } from '@adintel/redis';
import { brokerUrl, type TransportConfig } from './transport-config';

/** /readyz's view of the transport: the broker answers. */
export class TransportReadiness implements OnApplicationShutdown {
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = createRedis({ url, name: 'transport:readiness', maxRetriesPerRequest: 0 });
  }

  check(): ReadinessCheck {
    return { name: 'transport', check: () => this.redis.ping() };
  }

  onApplicationShutdown() {
    return closeRedis(this.redis);
  }
}

@Module({})
export class TransportReadinessModule {
  /** Provides TransportReadiness for an app's HealthModule checks. */
  static register(): DynamicModule {
    return {
      module: TransportReadinessModule,
      providers: [{ provide: TransportReadiness, inject: [APP_CONFIG], useFactory: (config: TransportConfig) => new TransportReadiness(brokerUrl(config)) }],
      exports: [TransportReadiness],
    };
  }
}
