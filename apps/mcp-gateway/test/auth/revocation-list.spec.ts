import { randomBytes } from 'node:crypto';
import { Redis } from '@adintel/redis';
import { RevocationList } from '../../src/auth/revocation-list';
import type { Caller } from '../../src/auth/caller';
import { TEST_REDIS_URL } from '../support/gateway-harness';

/** The gateway's copy of the auth server's revocation stream, on the real Redis (db 3, a stream of its own). */
describe('RevocationList', () => {
  const redis = new Redis(TEST_REDIS_URL);
  const stream = `test-revocations:${randomBytes(4).toString('hex')}`;
  let now = Date.now();
  const list = new RevocationList(redis, { stream, pollMs: 60_000 }, () => now);
  const caller = (extra: Partial<Caller>): Caller => ({ sub: 'agt_x', scopes: ['mcp:read'], expiresAt: now / 1000 + 3600, ...extra });
  const revoke = (kind: string, id: string, untilSeconds: number) => redis.xadd(stream, '*', 'kind', kind, 'id', id, 'until', String(untilSeconds));

  afterAll(async () => {
    list.onApplicationShutdown();
    await redis.del(stream);
    redis.disconnect();
  });

  it('reads what was listed before it started, then what is added, by token id and by grant id', async () => {
    await revoke('token', 'jti-1', now / 1000 + 60);
    await list.onModuleInit();
    expect(list.isRevoked(caller({ tokenId: 'jti-1' }))).toBe(true);
    expect(list.isRevoked(caller({ tokenId: 'jti-2', grantId: 'grant-1' }))).toBe(false);
    await revoke('grant', 'grant-1', now / 1000 + 60);
    await list.poll();
    expect(list.isRevoked(caller({ tokenId: 'jti-2', grantId: 'grant-1' }))).toBe(true);
    expect(list.isRevoked(caller({}))).toBe(false);
  });

  it('reads a backlog longer than one batch', async () => {
    for (let i = 0; i < 1_200; i += 200) {
      const multi = redis.multi();
      for (let j = i; j < i + 200; j++) multi.xadd(stream, '*', 'kind', 'token', 'id', `bulk-${j}`, 'until', String(now / 1000 + 60));
      await multi.exec();
    }
    await list.poll();
    expect(list.isRevoked(caller({ tokenId: 'bulk-0' }))).toBe(true);
    expect(list.isRevoked(caller({ tokenId: 'bulk-1199' }))).toBe(true);
  });

  it('forgets an entry once no token it could refuse is alive', async () => {
    now += 61_000;
    expect(list.isRevoked(caller({ tokenId: 'jti-1' }))).toBe(false);
    await list.poll();
    expect(list.isRevoked(caller({ grantId: 'grant-1' }))).toBe(false);
  });

  it('keeps what it has while the stream cannot be read', async () => {
    await revoke('token', 'jti-kept', now / 1000 + 60);
    const own = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 0 });
    const follower = new RevocationList(own, { stream, pollMs: 60_000 }, () => now);
    await follower.poll();
    expect(follower.isRevoked(caller({ tokenId: 'jti-kept' }))).toBe(true);
    own.disconnect();
    await follower.poll(); // logs a warning, throws nothing
    expect(follower.isRevoked(caller({ tokenId: 'jti-kept' }))).toBe(true);
  });
});
