import { Module } from '@nestjs/common';
import { StoreModule } from '../store/store.module';
import { CreativesController } from './creatives.controller';
import { CreativesService } from './creatives.service';

@Module({ imports: [StoreModule], controllers: [CreativesController], providers: [CreativesService] })
export class CreativesModule {}
