import { createHash } from 'node:crypto';
import { type Redis } from '@adintel/redis';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { storedClientSecret } from './client-secret-hash';

/** Models whose records belong to a grant: revoking the grant deletes them all. */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);
/** Models used once: a hash, so `consume` can mark them without rewriting the payload. */
const CONSUMABLE = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

/**
 * Models whose ids are not secrets: a client id is public, a grant id only names a grant. Every other id (a session,
 * an interaction, an authorization code, a refresh token ...) is a bearer secret: its key holds a digest of it
 * (`secretKeyName`), never the value, so a key name read anywhere (a dump, a log, a SCAN) opens nothing.
 */
const PLAIN_IDS = new Set(['Client', 'Grant']);

const grantKey = (grantId: string) => `grant:${grantId}`;
/** The key of one record of a model (`Client`, `Grant`, ...), for code outside the adapter that manages its lifetime. */
export const modelKey = (model: string, id: string) => (PLAIN_IDS.has(model) ? `${model}:${id}` : `${model}:${secretKeyName(id)}`);
/** The key of a record written before ids were digested (read, consumed and deleted until it expires). */
const legacyKey = (model: string, id: string) => `${model}:${id}`;
const userCodeKey = (userCode: string) => `userCode:${secretKeyName(userCode)}`;
const uidKey = (uid: string) => `uid:${secretKeyName(uid)}`;

/** A secret as it appears in a key name: its SHA-256 (the secrets are random, 128 bits or more: no salt needed). */
export const secretKeyName = (secret: string) => createHash('sha256').update(secret).digest('base64url');

/** Deletes a grant and every code and refresh token issued on it (the adapter lists them per grant). */
export async function destroyGrant(redis: Redis, grantId: string): Promise<void> {
  const list = grantKey(grantId);
  const keys = await redis.lrange(list, 0, -1);
  await redis.del(modelKey('Grant', grantId), ...keys, list);
}

/**
 * oidc-provider storage on Redis, one adapter instance per model. Every record expires with its
 * artifact (Redis TTL = expiresIn); a registered client, which has none, lives `clientTtlSeconds` until it is
 * used (ClientLifetime extends it on every token and keeps attached agents for good).
 */
export function redisAdapterFactory(redis: Redis, options: { clientTtlSeconds: number }): new (name: string) => Adapter {
  return class RedisAdapter implements Adapter {
    constructor(private readonly name: string) {}

    private key(id: string) {
      return modelKey(this.name, id);
    }

    async upsert(id: string, stored: AdapterPayload, expiresIn = this.name === 'Client' ? options.clientTtlSeconds : undefined): Promise<void> {
      const key = this.key(id);
      const payload = this.withSecretDigest(stored);
      const multi = redis.multi();
      if (CONSUMABLE.has(this.name)) {
        multi.del(key);
        multi.hset(key, { payload: JSON.stringify(payload) });
      } else {
        multi.set(key, JSON.stringify(payload));
      }
      if (expiresIn) multi.expire(key, expiresIn);
      if (GRANTABLE.has(this.name) && payload.grantId) {
        const list = grantKey(payload.grantId);
        multi.rpush(list, key);
        // The list lives as long as its longest-lived member.
        const ttl = await redis.ttl(list);
        if (expiresIn && expiresIn > ttl) multi.expire(list, expiresIn);
      }
      if (payload.userCode) {
        multi.set(userCodeKey(payload.userCode), id);
        if (expiresIn) multi.expire(userCodeKey(payload.userCode), expiresIn);
      }
      if (payload.uid) {
        multi.set(uidKey(payload.uid), id);
        if (expiresIn) multi.expire(uidKey(payload.uid), expiresIn);
      }
      await multi.exec();
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return (await this.findAt(this.key(id))) ?? (PLAIN_IDS.has(this.name) ? undefined : this.findAt(legacyKey(this.name, id)));
    }

    private async findAt(key: string): Promise<AdapterPayload | undefined> {
      if (CONSUMABLE.has(this.name)) {
        const { payload, consumed } = await redis.hgetall(key);
        if (!payload) return undefined;
        return { ...(JSON.parse(payload) as AdapterPayload), ...(consumed ? { consumed: Number(consumed) } : {}) };
      }
      const data = await redis.get(key);
      return data ? this.withSecretDigest(JSON.parse(data) as AdapterPayload) : undefined;
    }

    /** A client's secret is stored, and read, as its digest only (client-secret-hash.ts). */
    private withSecretDigest(payload: AdapterPayload): AdapterPayload {
      const secret = payload['client_secret'];
      return this.name === 'Client' && typeof secret === 'string' ? { ...payload, client_secret: storedClientSecret(secret) } : payload;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const id = await redis.get(uidKey(uid));
      return id ? this.find(id) : undefined;
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const id = await redis.get(userCodeKey(userCode));
      return id ? this.find(id) : undefined;
    }

    async consume(id: string): Promise<void> {
      const key = PLAIN_IDS.has(this.name) || (await redis.exists(this.key(id))) ? this.key(id) : legacyKey(this.name, id);
      await redis.hset(key, 'consumed', Math.floor(Date.now() / 1000));
    }

    async destroy(id: string): Promise<void> {
      await redis.del(this.key(id), legacyKey(this.name, id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      const list = grantKey(grantId);
      const keys = await redis.lrange(list, 0, -1);
      await redis.del(...keys, list);
    }
  };
}
