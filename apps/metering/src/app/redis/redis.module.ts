import { Global, Module } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import { RedisModule } from '@adintel/redis';
import type { AppConfig } from '../../config';
import { MeteringKeys } from './keys';

/** Metering's system of record: the data Redis (`REDIS` of @adintel/redis) and where its keys live. */
@Global()
@Module({
  imports: [RedisModule.register({ inject: [APP_CONFIG], useFactory: (config: AppConfig) => ({ url: config.REDIS_URL, name: 'metering' }) })],
  providers: [{ provide: MeteringKeys, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new MeteringKeys(config.REDIS_KEY_PREFIX) }],
  exports: [MeteringKeys],
})
export class MeteringRedisModule {}
