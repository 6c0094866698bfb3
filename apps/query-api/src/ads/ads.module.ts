import { Module } from '@nestjs/common';
import { StoreModule } from '../store/store.module';
import { AdsController } from './ads.controller';
import { AdsService } from './ads.service';

@Module({ imports: [StoreModule], controllers: [AdsController], providers: [AdsService] })
export class AdsModule {}
