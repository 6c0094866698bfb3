import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../config';
import { MediaModule } from '../media/media.module';
import { PagingModule } from '../paging/paging.module';
import { StoreModule } from '../store/store.module';
import { IngestStreamRepository } from './ingest-stream.repository';
import { LiveConsumer } from './live-consumer';
import { LIVE_SETTINGS, LiveIngestService } from './live-ingest.service';
import { LiveMedia } from './live-media';
import { LIVE_METRIC_PROVIDERS, LiveMetrics } from './live-metrics';
import { liveSettingsFrom, type LiveSettings } from './live-settings';

/**
 * The live door (docs/live-data.md): sightings from a Redis stream applied to the store while the app serves.
 * live-consumer.ts reads the stream, live-ingest.service.ts decides what a batch does, ingest-stream.repository.ts
 * holds the Redis queries (shared with the CLI's `ingest --live` and `dead-letters`), live-media.ts resolves the media a
 * line brings that the store does not hold yet.
 */
@Module({
  imports: [PagingModule, StoreModule, MediaModule],
  providers: [
    { provide: LIVE_SETTINGS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => liveSettingsFrom(config) },
    {
      provide: IngestStreamRepository,
      inject: [LIVE_SETTINGS],
      useFactory: (settings: LiveSettings) => IngestStreamRepository.connect(settings.url, settings.stream),
    },
    ...LIVE_METRIC_PROVIDERS,
    LiveMetrics,
    LiveMedia,
    LiveIngestService,
    LiveConsumer,
  ],
  exports: [LiveConsumer],
})
export class LiveModule {}
