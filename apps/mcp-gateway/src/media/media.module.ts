import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import type { Redis } from '@adintel/redis';
import type { AppConfig } from '../config';
import { AuthModule } from '../auth/auth.module';
import { InvocationModule } from '../invocation/invocation.module';
import { GATEWAY_REDIS, GatewayRedisModule } from '../redis/gateway-redis.module';
import { createMediaReader } from '@adintel/media-store';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { MEDIA_READER, MediaFiles } from './media-files';
import { MediaPassRepository } from './media-pass.repository';
import { MediaResources } from './media-resources';
import { MediaController } from './media.controller';
import { MediaService } from './media.service';

/** The media routes (REST) and the media resources (MCP resources/read), over one MediaService; the media store's reader. */
@Module({
  imports: [AuthModule, InvocationModule, GatewayRedisModule, RateLimitModule],
  controllers: [MediaController],
  providers: [
    MediaService,
    MediaFiles,
    // The media store, read only: the engine and variables query-api writes with (MEDIA_ENGINE, MEDIA_DIR, MEDIA_S3_*).
    { provide: MEDIA_READER, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createMediaReader(config, config.MEDIA_DIR) },
    MediaResources,
    {
      provide: MediaPassRepository,
      inject: [GATEWAY_REDIS, APP_CONFIG],
      useFactory: (redis: Redis, config: AppConfig) => new MediaPassRepository(redis, config.GATEWAY_KEY_PREFIX),
    },
  ],
  exports: [MediaResources, MediaFiles],
})
export class MediaModule {}
