import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectRedis, type Redis } from '@adintel/redis';
import type Provider from 'oidc-provider';
import { modelKey } from '../oidc/redis-adapter';
import { InjectOidcProvider } from '../oidc/oidc.tokens';
import { OwnerAccess, ownerGrantsKey } from '../owners/owner-access';

/** One OAuth client an owner approved (a grant of the code flow), as the account page lists it. */
export interface ApprovedClient {
  readonly grantId: string;
  readonly clientId: string;
  readonly clientName: string | null;
  /** ISO time of the last token issued on this grant (a code exchange or a refresh). */
  readonly lastUsedAt: string;
}

interface Stored {
  client_id: string;
  client_name: string | null;
  last_used_at: string;
}

/** As long as a grant lives (oidc-provider's Grant TTL, oidc-provider.factory.ts). */
const GRANT_TTL_SECONDS = 30 * 24 * 3600;

/**
 * The OAuth clients each owner approved, with when each last took a token, and their revocation. Recorded on every
 * token the provider issues on a grant of the code flow; a grant that expired or was revoked elsewhere drops out
 * of the list when it is next read.
 */
@Injectable()
export class ApprovedClients implements OnModuleInit {
  private readonly logger = new Logger(ApprovedClients.name);

  constructor(
    @InjectRedis() private readonly redis: Redis,
    @InjectOidcProvider() private readonly provider: Provider,
    private readonly access: OwnerAccess,
  ) {}

  onModuleInit() {
    this.provider.on('grant.success', (ctx) => {
      const { AuthorizationCode: code, RefreshToken: refresh } = ctx.oidc.entities;
      const artifact = code ?? refresh;
      const client = ctx.oidc.client;
      if (!artifact?.grantId || !artifact.accountId || !client) return;
      this.used(artifact.accountId, artifact.grantId, client.clientId, client.clientName ?? null).catch((error: unknown) =>
        this.logger.warn(`could not record the use of grant ${artifact.grantId}: ${(error as Error).message}`),
      );
    });
  }

  private async used(ownerId: string, grantId: string, clientId: string, clientName: string | null) {
    const stored: Stored = { client_id: clientId, client_name: clientName, last_used_at: new Date().toISOString() };
    await this.redis.multi().hset(ownerGrantsKey(ownerId), grantId, JSON.stringify(stored)).expire(ownerGrantsKey(ownerId), GRANT_TTL_SECONDS).exec();
  }

  async list(ownerId: string): Promise<ApprovedClient[]> {
    const entries = Object.entries(await this.redis.hgetall(ownerGrantsKey(ownerId)));
    if (entries.length === 0) return [];
    const alive = await Promise.all(entries.map(([grantId]) => this.redis.exists(modelKey('Grant', grantId))));
    const gone = entries.filter((_, i) => !alive[i]).map(([grantId]) => grantId);
    if (gone.length) await this.redis.hdel(ownerGrantsKey(ownerId), ...gone);
    return entries
      .filter((_, i) => alive[i])
      .map(([grantId, json]) => {
        const stored = JSON.parse(json) as Stored;
        return { grantId, clientId: stored.client_id, clientName: stored.client_name, lastUsedAt: stored.last_used_at };
      })
      .sort((a, b) => b.lastUsedAt.localeCompare(a.lastUsedAt));
  }

  /**
   * Ends an approval: the grant and its refresh tokens and codes are deleted, and its access tokens go on the
   * revocation list, so the gateway refuses them within seconds. False when the grant is not this owner's.
   */
  async revoke(ownerId: string, grantId: string): Promise<boolean> {
    if (!(await this.redis.hexists(ownerGrantsKey(ownerId), grantId))) return false;
    const grant = await this.provider.Grant.find(grantId);
    if (grant && grant.accountId !== ownerId) return false;
    await this.access.endGrant(ownerId, grantId);
    this.logger.log(`grant ${grantId} revoked by ${ownerId}`);
    return true;
  }
}
