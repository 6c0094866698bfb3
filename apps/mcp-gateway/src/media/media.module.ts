import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import type { Redis } from '@adintel/redis';
import type { AppConfig } from '../config';
import { AuthModule } from '../auth/auth.module';
import { InvocationModule } from '../invocation/invocation.module';
import { GATEWAY_REDIS, GatewayRedisModule } from '../redis/gateway-redis.module';
import { MediaFilesClient } from './media-files.client';
import { MediaPassRepository } from './media-pass.repository';
import { MediaResources } from './media-resources';
import { MediaController } from './media.controller';
import { MediaService } from './media.service';

/** The media routes (REST) and the media resources (MCP resources/read), over one MediaService. */
@Module({
  imports: [AuthModule, InvocationModule, GatewayRedisModule],
  controllers: [MediaController],
  providers: [
    MediaService,
    MediaFilesClient,
    MediaResources,
    {
      provide: MediaPassRepository,
      inject: [GATEWAY_REDIS, APP_CONFIG],
      useFactory: (redis: Redis, config: AppConfig) => new MediaPassRepository(redis, config.GATEWAY_KEY_PREFIX),
    },
  ],
  exports: [MediaResources],
})
export class MediaModule {}
