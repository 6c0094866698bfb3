import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule } from '@adintel/config';
import { HealthModule, MetricsModule } from '@adintel/observability';
import { REDIS, type Redis } from '@adintel/redis';
import type { AppConfig } from '../config';
import { AccountModule } from './account/account.module';
import { InteractionModule } from './interaction/interaction.module';
import { MeteringGateway } from './metering/metering.gateway';
import { MeteringModule } from './metering/metering.module';
import { OidcModule } from './oidc/oidc.module';
import { AuthRedisModule } from './redis/redis.module';

@Module({})
export class AppModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MetricsModule, // first: /metrics ahead of any catch-all route
        ConfigModule.forRoot(config),
        AuthRedisModule,
        MeteringModule,
        OidcModule,
        InteractionModule,
        AccountModule,
        HealthModule.register({
          inject: [REDIS, MeteringGateway],
          useFactory: (redis: Redis, metering: MeteringGateway) => [
            { name: 'redis', check: () => redis.ping() },
            { name: 'metering', check: () => metering.ping() },
          ],
        }),
      ],
    };
  }
}
