import { Global, Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule } from '@adintel/config';
import { HealthModule, MetricsModule } from '@adintel/observability';
import { TransportReadinessModule } from '@adintel/transport';
import { AdsModule } from '../ads/ads.module';
import { AdvertisersModule } from '../advertisers/advertisers.module';
import { AppsModule } from '../apps/apps.module';
import { CatalogModule } from '../catalog/catalog.module';
import type { AppConfig } from '../config';
import { CreativesModule } from '../creatives/creatives.module';
import { DomainsModule } from '../domains/domains.module';
import { LiveModule } from '../live/live.module';
import { PagingModule } from '../paging/paging.module';
import { StoreModule } from '../store/store.module';
import { TrendsModule } from '../trends/trends.module';
import { WebmastersModule } from '../webmasters/webmasters.module';
import { Readiness } from './readiness';

@Global()
@Module({ imports: [StoreModule, TransportReadinessModule.register()], providers: [Readiness], exports: [Readiness] })
class ReadinessModule {}

@Module({})
export class AppModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MetricsModule, // first: /metrics ahead of any catch-all route
        ConfigModule.forRoot(config),
        StoreModule,
        PagingModule,
        ReadinessModule,
        HealthModule.register({ inject: [Readiness], useFactory: (readiness: Readiness) => readiness.checks() }),
        AdsModule,
        TrendsModule,
        AdvertisersModule,
        WebmastersModule,
        CreativesModule,
        DomainsModule,
        AppsModule,
        CatalogModule,
        LiveModule,
      ],
    };
  }
}
