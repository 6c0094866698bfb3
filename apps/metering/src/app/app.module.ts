import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule } from '@adintel/config';
import { HealthModule, MetricsModule } from '@adintel/observability';
import { REDIS, type Redis } from '@adintel/redis';
import type { AppConfig } from '../config';
import { AccountsModule } from './accounts/accounts.module';
import { ReservationsModule } from './balances/reservations.module';
import { ClockModule } from './clock/clock.module';
import { PingController } from './ping.controller';
import { PlansModule } from './plans/plans.module';
import { MeteringRedisModule } from './redis/redis.module';
import { UsageModule } from './usage/usage.module';

@Module({})
export class AppModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MetricsModule, // first: /metrics ahead of any catch-all route
        ConfigModule.forRoot(config),
        MeteringRedisModule,
        ClockModule,
        PlansModule,
        AccountsModule,
        ReservationsModule,
        UsageModule,
        HealthModule.register({ inject: [REDIS], useFactory: (redis: Redis) => [{ name: 'redis', check: () => redis.ping() }] }),
      ],
      controllers: [PingController],
    };
  }
}
