import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectRedis, type Redis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import type { TrialLifetime } from '@adintel/contracts';
import type Provider from 'oidc-provider';
import type { AppConfig } from '../../config';
import { MeteringGateway } from '../metering/metering.gateway';
import { modelKey } from './redis-adapter';
import { OIDC_PROVIDER } from './oidc.tokens';

/**
 * How long a registered client is kept. It is created with CLIENT_UNUSED_TTL_SECONDS (redis-adapter.ts); every
 * token issued to it moves its end to CLIENT_IDLE_TTL_SECONDS from now; an agent an owner attaches is kept for
 * good, and one detached starts idling again. Clients nobody uses disappear, so open registration cannot fill Redis.
 *
 * A client never outlives its agent's trial in metering (which forgets trials too, TRIAL_TTL_SECONDS after their last
 * use): a client whose trial was gone would be handed a fresh one. So a token moves the client's end only after
 * metering has moved the trial's, and never past it; metering attaches and detaches before `keep` and `release`.
 */
@Injectable()
export class ClientLifetime implements OnModuleInit {
  private readonly logger = new Logger(ClientLifetime.name);

  constructor(
    @InjectRedis() private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(OIDC_PROVIDER) private readonly provider: Provider,
    private readonly metering: MeteringGateway,
  ) {}

  onModuleInit() {
    this.provider.on('grant.success', (ctx) => {
      const clientId = ctx.oidc.client?.clientId;
      if (clientId) this.used(clientId).catch((error: unknown) => this.logger.warn(`could not extend client ${clientId}: ${(error as Error).message}`));
    });
  }

  /**
   * A token was issued. The client lives CLIENT_IDLE_TTL_SECONDS from now, but no longer than metering keeps its trial.
   * When metering cannot be asked, the token stands and the client keeps the end it had, which its trial outlives;
   * the next token moves both.
   */
  async used(clientId: string): Promise<void> {
    let trial: TrialLifetime;
    try {
      trial = await this.metering.trialUsed(clientId);
    } catch (error) {
      this.logger.warn({ msg: 'token issued, client life not extended: metering did not extend its trial', client_id: clientId, reason: (error as Error).message });
      return;
    }
    const key = modelKey('Client', clientId);
    if (trial.trial === 'expiring') {
      // Not GT: a client kept while metering says its agent is detached (a release that failed) starts ageing here.
      await this.redis.multi().expire(key, this.config.CLIENT_IDLE_TTL_SECONDS).pexpireat(key, Date.parse(trial.expires_at), 'LT').exec();
    } else {
      // No trial (an owner's application) or a kept one. GT: a kept client stays kept. Only `keep` persists a client:
      // an answer from before a detach must not undo the release that followed it.
      await this.redis.expire(key, this.config.CLIENT_IDLE_TTL_SECONDS, 'GT');
    }
  }

  /** Attached to an owner (metering keeps its trial from then on): kept until detached. */
  async keep(clientId: string): Promise<void> {
    await this.redis.persist(modelKey('Client', clientId));
  }

  /** Detached (metering lets its trial age again, TRIAL_TTL_SECONDS, longer): idles like any client from now on. */
  async release(clientId: string): Promise<void> {
    await this.redis.expire(modelKey('Client', clientId), this.config.CLIENT_IDLE_TTL_SECONDS);
  }
}
