import { Module } from '@nestjs/common';
import { StoreModule } from '../store/store.module';
import { AdvertisersController } from './advertisers.controller';
import { AdvertisersService } from './advertisers.service';

@Module({ imports: [StoreModule], controllers: [AdvertisersController], providers: [AdvertisersService] })
export class AdvertisersModule {}
