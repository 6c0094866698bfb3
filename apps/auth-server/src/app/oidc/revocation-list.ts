import { Inject, Injectable } from '@nestjs/common';
import { InjectRedis, type Redis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../../config';
import { secretKeyName } from './redis-adapter';

/**
 * The stream of revocations every resource server follows (the gateway reads it as `{REDIS_KEY_PREFIX}revocations`,
 * its REVOCATION_STREAM). One entry per revoked access token (`token`, its jti) or grant (`grant`, its id, which
 * the tokens of the code flow carry as `grant_id`), with `until`: when the last token it can refuse expires (epoch
 * seconds). Entries older than one access-token lifetime are trimmed: no token they could refuse is still alive.
 */
export const REVOCATION_STREAM = 'revocations';

export type RevocationKind = 'token' | 'grant';

/** Marks what is listed, until its entry is no longer needed (its `until`); a digest, as the id may be a token's. */
const listedKey = (kind: RevocationKind, id: string) => `revoked:${kind}:${secretKeyName(id)}`;

/**
 * Lua: adds the entry only if it is not listed yet (KEYS[1] marks it until ARGV[1], epoch seconds), trimming entries
 * older than ARGV[2] (ms). KEYS: marker, stream. ARGV: until, oldest, kind, id.
 */
const LIST_ONCE = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'EXAT', ARGV[1]) then return 0 end
redis.call('XADD', KEYS[2], 'MINID', '~', ARGV[2], '*', 'kind', ARGV[3], 'id', ARGV[4], 'until', ARGV[1])
return 1`;

@Injectable()
export class RevocationList {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Lists a token or grant once: a repeat while its first entry can still refuse something adds nothing. */
  async revoke(kind: RevocationKind, id: string, until = Math.ceil(Date.now() / 1000) + this.config.ACCESS_TOKEN_TTL_SECONDS): Promise<void> {
    const oldest = Date.now() - this.config.ACCESS_TOKEN_TTL_SECONDS * 1000;
    await this.redis.eval(LIST_ONCE, 2, listedKey(kind, id), REVOCATION_STREAM, until, oldest, kind, id);
  }
}
