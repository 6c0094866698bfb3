import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../config';
import { StoreModule } from '../store/store.module';
import { LookalikeIndex } from './lookalike-index.service';
import { createMediaStore } from './media-store-factory';
import { MEDIA_STORE, type MediaStore } from './media-store.port';

class MediaStoreShutdown implements OnApplicationShutdown {
  constructor(@Inject(MEDIA_STORE) private readonly store: MediaStore) {}
  async onApplicationShutdown() {
    await this.store.close();
  }
}

/** The configured media store (MEDIA_STORE, media-store-factory.ts) and the look-alike index of the creatives. */
@Module({
  imports: [StoreModule],
  providers: [
    { provide: MEDIA_STORE, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createMediaStore(config) },
    MediaStoreShutdown,
    LookalikeIndex,
  ],
  exports: [MEDIA_STORE, LookalikeIndex],
})
export class MediaModule {}
