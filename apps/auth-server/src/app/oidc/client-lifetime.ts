import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectRedis, type Redis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import type Provider from 'oidc-provider';
import type { AppConfig } from '../../config';
import { modelKey } from './redis-adapter';
import { OIDC_PROVIDER } from './oidc.tokens';

/**
 * How long a registered client is kept. It is created with CLIENT_UNUSED_TTL_SECONDS (redis-adapter.ts); every
 * token issued to it moves its end to CLIENT_IDLE_TTL_SECONDS from now; an agent an owner attaches is kept for
 * good, and one detached starts idling again. Clients nobody uses disappear, so open registration cannot fill Redis.
 */
@Injectable()
export class ClientLifetime implements OnModuleInit {
  private readonly logger = new Logger(ClientLifetime.name);

  constructor(
    @InjectRedis() private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(OIDC_PROVIDER) private readonly provider: Provider,
  ) {}

  onModuleInit() {
    this.provider.on('grant.success', (ctx) => {
      const clientId = ctx.oidc.client?.clientId;
      if (clientId) this.used(clientId).catch((error: unknown) => this.logger.warn(`could not extend client ${clientId}: ${(error as Error).message}`));
    });
  }

  /** A token was issued: the client lives CLIENT_IDLE_TTL_SECONDS from now (GT: a client kept for good stays kept). */
  async used(clientId: string): Promise<void> {
    await this.redis.expire(modelKey('Client', clientId), this.config.CLIENT_IDLE_TTL_SECONDS, 'GT');
  }

  /** Attached to an owner: kept until detached. */
  async keep(clientId: string): Promise<void> {
    await this.redis.persist(modelKey('Client', clientId));
  }

  /** Detached: idles like any client from now on. */
  async release(clientId: string): Promise<void> {
    await this.redis.expire(modelKey('Client', clientId), this.config.CLIENT_IDLE_TTL_SECONDS);
  }
}
