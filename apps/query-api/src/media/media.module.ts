import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../config';
import { StoreModule } from '../store/store.module';
import { LookalikeIndex } from './lookalike-index.service';
import { MediaController } from './media.controller';
import { MediaService } from './media.service';
import { createMediaStore } from './media-store-factory';
import { MEDIA_STORE, type MediaStore } from './media-store.port';
import { PictureCatalogue } from './picture-catalogue';
import { PictureQueue } from './picture-queue';
import { liveSettingsFrom } from '../live/live-settings';

class MediaStoreShutdown implements OnApplicationShutdown {
  constructor(
    @Inject(MEDIA_STORE) private readonly store: MediaStore,
    private readonly queue: PictureQueue,
  ) {}
  async onApplicationShutdown() {
    await Promise.all([this.store.close(), this.queue.close()]);
  }
}

/**
 * The configured media store (MEDIA_STORE, media-store-factory.ts), which file of it a media entry is for the
 * gateway's media routes (`QueryMessages.locateMedia`: never its bytes), the look-alike index of the creatives, and the
 * picture catalogue the reads resolve pending pictures against.
 */
@Module({
  imports: [StoreModule],
  controllers: [MediaController],
  providers: [
    MediaService,
    { provide: MEDIA_STORE, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createMediaStore(config) },
    { provide: PictureCatalogue, inject: [MEDIA_STORE], useFactory: (store: MediaStore) => new PictureCatalogue(store) },
    {
      provide: PictureQueue,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => {
        const live = liveSettingsFrom(config);
        return PictureQueue.connect(live.url, live.stream);
      },
    },
    MediaStoreShutdown,
    LookalikeIndex,
  ],
  exports: [MEDIA_STORE, LookalikeIndex, PictureCatalogue],
})
export class MediaModule {}
