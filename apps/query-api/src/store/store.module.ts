import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import { AppMetrics } from '@adintel/observability';
import type { AppConfig } from '../config';
import { AD_STORE, type AdStore, LIVE_WRITER_FACTORY } from './ad-store.port';
import { createServingEngine, type ServingEngine } from './store-factory';
import { timedStore } from './timed-store';

/** The engine picked once (store-factory.ts); AD_STORE and LIVE_WRITER_FACTORY are its two faces. */
const SERVING_ENGINE = Symbol('SERVING_ENGINE');

class StoreShutdown implements OnApplicationShutdown {
  constructor(@Inject(AD_STORE) private readonly store: AdStore) {}
  async onApplicationShutdown() {
    await this.store.close();
  }
}

/**
 * Provides the configured AdStore (AD_STORE) and the opener of its live writer (LIVE_WRITER_FACTORY). Features import
 * it, so a reader can follow a call from a controller through its module into the engine: store-factory.ts ->
 * sqlite/sqlite-store.ts -> sqlite/sqlite-reader.ts.
 */
@Module({
  providers: [
    { provide: SERVING_ENGINE, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createServingEngine(config) },
    {
      provide: AD_STORE,
      inject: [SERVING_ENGINE, AppMetrics],
      useFactory: (engine: ServingEngine, metrics: AppMetrics) => timedStore(engine.store, metrics),
    },
    { provide: LIVE_WRITER_FACTORY, inject: [SERVING_ENGINE], useFactory: (engine: ServingEngine) => engine.openLiveWriter },
    StoreShutdown,
  ],
  exports: [AD_STORE, LIVE_WRITER_FACTORY],
})
export class StoreModule {}
