import { Module } from '@nestjs/common';
import { StoreModule } from '../store/store.module';
import { WebmastersController } from './webmasters.controller';
import { WebmastersService } from './webmasters.service';

@Module({ imports: [StoreModule], controllers: [WebmastersController], providers: [WebmastersService] })
export class WebmastersModule {}
