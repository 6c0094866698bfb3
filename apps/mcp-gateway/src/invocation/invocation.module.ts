import { Module } from '@nestjs/common';
import type { Redis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import { TransportClientModule } from '@adintel/transport';
import type { AppConfig } from '../config';
import { IdempotencyRepository } from '../idempotency/idempotency.repository';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { GATEWAY_REDIS, GatewayRedisModule } from '../redis/gateway-redis.module';
import { ToolInvoker } from './tool-invoker.service';

@Module({
  imports: [TransportClientModule.register(['query', 'metering']), RateLimitModule, GatewayRedisModule],
  providers: [
    ToolInvoker,
    {
      provide: IdempotencyService,
      inject: [GATEWAY_REDIS, APP_CONFIG],
      useFactory: (redis: Redis, config: AppConfig) =>
        new IdempotencyService(new IdempotencyRepository(redis, config.GATEWAY_KEY_PREFIX), {
          resultSeconds: config.IDEMPOTENCY_TTL_SECONDS,
          // A running call's claim outlives its longest path (reserve, query, every settle attempt).
          runningSeconds: Math.ceil((config.TRANSPORT_TIMEOUT_MS * (2 + config.SETTLE_ATTEMPTS)) / 1000) + 5,
        }),
    },
  ],
  exports: [ToolInvoker, TransportClientModule],
})
export class InvocationModule {}
