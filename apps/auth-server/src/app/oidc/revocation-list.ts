import { Inject, Injectable } from '@nestjs/common';
import { InjectRedis, type Redis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../../config';

/**
 * The stream of revocations every resource server follows (the gateway reads it as `{REDIS_KEY_PREFIX}revocations`,
 * its REVOCATION_STREAM). One entry per revoked access token (`token`, its jti) or grant (`grant`, its id, which
 * the tokens of the code flow carry as `grant_id`), with `until`: when the last token it can refuse expires (epoch
 * seconds). Entries older than one access-token lifetime are trimmed: no token they could refuse is still alive.
 */
export const REVOCATION_STREAM = 'revocations';

export type RevocationKind = 'token' | 'grant';

@Injectable()
export class RevocationList {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async revoke(kind: RevocationKind, id: string, until = Math.ceil(Date.now() / 1000) + this.config.ACCESS_TOKEN_TTL_SECONDS): Promise<void> {
    const oldest = Date.now() - this.config.ACCESS_TOKEN_TTL_SECONDS * 1000;
    await this.redis.xadd(REVOCATION_STREAM, 'MINID', '~', String(oldest), '*', 'kind', kind, 'id', id, 'until', String(until));
  }
}
