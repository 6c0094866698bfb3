import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../config';
import { StoreModule } from '../store/store.module';
import { LookalikeIndex } from './lookalike-index.service';
import { MediaController } from './media.controller';
import { MediaService } from './media.service';
import { createMediaStore } from './media-store-factory';
import { MEDIA_STORE, type MediaStore } from './media-store.port';

class MediaStoreShutdown implements OnApplicationShutdown {
  constructor(@Inject(MEDIA_STORE) private readonly store: MediaStore) {}
  async onApplicationShutdown() {
    await this.store.close();
  }
}

/**
 * The configured media store (MEDIA_STORE, media-store-factory.ts), the files read for the gateway's media route
 * (`QueryMessages.getMedia`), and the look-alike index of the creatives.
 */
@Module({
  imports: [StoreModule],
  controllers: [MediaController],
  providers: [
    MediaService,
    { provide: MEDIA_STORE, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createMediaStore(config) },
    MediaStoreShutdown,
    LookalikeIndex,
  ],
  exports: [MEDIA_STORE, LookalikeIndex],
})
export class MediaModule {}
