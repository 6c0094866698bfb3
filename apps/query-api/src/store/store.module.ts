import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import { AppMetrics } from '@adintel/observability';
import type { AppConfig } from '../config';
import { AD_STORE, type AdStore } from './ad-store.port';
import { createAdStore } from './store-factory';
import { timedStore } from './timed-store';

class StoreShutdown implements OnApplicationShutdown {
  constructor(@Inject(AD_STORE) private readonly store: AdStore) {}
  async onApplicationShutdown() {
    await this.store.close();
  }
}

/**
 * Provides the configured AdStore (AD_STORE). Features import it, so a reader can follow a call from a
 * controller through its module into the engine: store-factory.ts -> sqlite/sqlite-store.ts -> sqlite/sqlite-reader.ts.
 */
@Module({
  providers: [
    {
      provide: AD_STORE,
      inject: [APP_CONFIG, AppMetrics],
      useFactory: (config: AppConfig, metrics: AppMetrics) => timedStore(createAdStore(config), metrics),
    },
    StoreShutdown,
  ],
  exports: [AD_STORE],
})
export class StoreModule {}
