import { MediaModule } from '../media/media.module';
import { Module } from '@nestjs/common';
import { CreativesModule } from '../creatives/creatives.module';
import { StoreModule } from '../store/store.module';
import { AdsController } from './ads.controller';
import { AdChangesService } from './ad-changes.service';
import { AdsService } from './ads.service';
import { SimilarAdsService } from './similar-ads.service';

@Module({ imports: [StoreModule, CreativesModule, MediaModule], controllers: [AdsController], providers: [AdsService, SimilarAdsService, AdChangesService] })
export class AdsModule {}
