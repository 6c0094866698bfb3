import { Injectable, Logger } from '@nestjs/common';
import { InjectRedis, type Redis } from '@adintel/redis';
import { destroyGrant, secretKeyName } from '../oidc/redis-adapter';
import { RevocationList } from '../oidc/revocation-list';

/** An `/account` session: the digest of the cookie's id -> the owner id. */
export const accountSessionKey = (sessionId: string) => `account-session:${secretKeyName(sessionId)}`;
/** set: the session keys of one owner, so a new password can end them all. */
export const ownerSessionsKey = (ownerId: string) => `owner-sessions:${ownerId}`;
/** hash: grant id -> the approved client's name and last use, one per owner (account/approved-clients.ts). */
export const ownerGrantsKey = (ownerId: string) => `owner-grants:${ownerId}`;

/**
 * What an owner's credentials opened: her `/account` sessions and the grants she approved. A new password ends
 * all of it (whoever learnt the old one keeps nothing); revoking one application ends its grant.
 */
@Injectable()
export class OwnerAccess {
  private readonly logger = new Logger(OwnerAccess.name);

  constructor(
    @InjectRedis() private readonly redis: Redis,
    private readonly revocations: RevocationList,
  ) {}

  /** Deletes the grant, its refresh tokens and codes, and lists its access tokens as revoked. */
  async endGrant(ownerId: string, grantId: string): Promise<void> {
    await destroyGrant(this.redis, grantId);
    await this.revocations.revoke('grant', grantId);
    await this.redis.hdel(ownerGrantsKey(ownerId), grantId);
  }

  /** Every session and grant of the owner; answers how many of each ended. */
  async endAll(ownerId: string): Promise<{ sessions: number; grants: number }> {
    const [sessions, grants] = await Promise.all([this.redis.smembers(ownerSessionsKey(ownerId)), this.redis.hkeys(ownerGrantsKey(ownerId))]);
    await this.redis.del(ownerSessionsKey(ownerId), ...sessions);
    for (const grantId of grants) await this.endGrant(ownerId, grantId);
    this.logger.log(`owner ${ownerId}: ${sessions.length} sessions ended and ${grants.length} grants revoked`);
    return { sessions: sessions.length, grants: grants.length };
  }
}
