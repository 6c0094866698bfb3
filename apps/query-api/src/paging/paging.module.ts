import { Global, Module } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../config';
import { StoreModule } from '../store/store.module';
import { CursorCodec } from './cursor-codec';
import { resolveCursorSecret } from './cursor-secret';
import { DataWindowService } from './data-window.service';
import { ListPager } from './list-pager';

/** Cursor signing and the data window, shared by every feature. */
@Global()
@Module({
  imports: [StoreModule],
  providers: [
    {
      provide: CursorCodec,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new CursorCodec(resolveCursorSecret(config.CURSOR_SECRET, config.DATA_DIR)),
    },
    DataWindowService,
    ListPager,
  ],
  exports: [CursorCodec, DataWindowService, ListPager],
})
export class PagingModule {}
