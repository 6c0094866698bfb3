import { Inject, Injectable } from '@nestjs/common';
import { InjectRedis, type Redis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../../config';
import { countHit, currentWindow } from './fixed-window';

const MINUTE = 60;
const counter = (clientId: string) => `ratelimit:revocations:${clientId}`;

export type RevocationAdmission = { allowed: true; window: string } | { allowed: false; limit: string; retryAfterSeconds: number };

/**
 * Revocation requests per client per minute: every one that names a token appends to the revocation list the gateways
 * follow. Counted before the provider runs (so a parallel flood cannot pass between a check and a count) and handed
 * back when the client did not authenticate: a stranger who names someone's client id with a wrong secret takes
 * nothing from it for longer than his request lasts (his failures count per address, as at the token endpoint).
 */
@Injectable()
export class RevocationRateLimiter {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async admit(clientId: string | undefined): Promise<RevocationAdmission> {
    const name = counter(clientId ?? 'unnamed');
    const now = Date.now();
    const { count, secondsLeft } = await countHit(this.redis, name, MINUTE, now);
    if (count <= this.config.REVOCATIONS_PER_CLIENT_PER_MINUTE) return { allowed: true, window: currentWindow(name, MINUTE, now).key };
    return { allowed: false, limit: 'revocations_per_client', retryAfterSeconds: secondsLeft };
  }

  /** Hands back an admitted request's count (its client did not authenticate). */
  async giveBack(window: string): Promise<void> {
    await this.redis.decr(window);
  }
}
