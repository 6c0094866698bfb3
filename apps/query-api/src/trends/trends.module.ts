import { Module } from '@nestjs/common';
import { StoreModule } from '../store/store.module';
import { TrendsController } from './trends.controller';
import { TrendsService } from './trends.service';

@Module({ imports: [StoreModule], controllers: [TrendsController], providers: [TrendsService] })
export class TrendsModule {}
