import { Module } from '@nestjs/common';
import { MediaModule } from '../media/media.module';
import { StoreModule } from '../store/store.module';
import { CreativesController } from './creatives.controller';
import { CreativesService } from './creatives.service';

@Module({ imports: [StoreModule, MediaModule], controllers: [CreativesController], providers: [CreativesService], exports: [CreativesService] })
export class CreativesModule {}
