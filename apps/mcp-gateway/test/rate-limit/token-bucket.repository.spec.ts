import { randomUUID } from 'node:crypto';
import { Redis } from '@adintel/redis';
import { ServiceError } from '@adintel/contracts';
import { TEST_REDIS_URL } from '../support/gateway-harness';
import { TokenBucketRepository } from '../../src/rate-limit/token-bucket.repository';
import { RateLimiterService, type RateLimits } from '../../src/rate-limit/rate-limiter.service';
import { ScanSlotsRepository } from '../../src/rate-limit/scan-slots.repository';

describe('token bucket on real Redis (db 3)', () => {
  let redis: Redis;
  const prefix = `gw-test-${randomUUID()}:`;
  const limits = (paid: RateLimits['paid'], scans: RateLimits['scans'] = { inFlight: 2, holdMs: 30_000 }): RateLimits => ({
    paid,
    freeData: { perMinute: 60, burst: 3 },
    scans,
  });
  const limiterOn = (store: Redis, paid = { perMinute: 2, burst: 1 }, scans?: RateLimits['scans']) =>
    new RateLimiterService(new TokenBucketRepository(store, prefix), new ScanSlotsRepository(store, prefix), limits(paid, scans));

  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('lets a burst through, refuses the next with the wait, and keeps accounts apart', async () => {
    const buckets = new TokenBucketRepository(redis, prefix);
    const takes = [];
    for (let i = 0; i < 4; i++) takes.push(await buckets.take('acct-a', 3, 60));
    expect(takes.map((t) => t.allowed)).toEqual([true, true, true, false]);
    expect(takes[2]?.remaining).toBe(0);
    // 60 per minute = one token per second
    expect(takes[3]?.retryAfterMs).toBeGreaterThan(0);
    expect(takes[3]?.retryAfterMs).toBeLessThanOrEqual(1000);
    expect((await buckets.take('acct-b', 3, 60)).allowed).toBe(true);
  });

  it('never grants more than the bucket holds to concurrent callers', async () => {
    const buckets = new TokenBucketRepository(redis, prefix);
    const takes = await Promise.all(Array.from({ length: 40 }, () => buckets.take('acct-c', 10, 1)));
    expect(takes.filter((t) => t.allowed)).toHaveLength(10);
  });

  it('refills with time', async () => {
    const buckets = new TokenBucketRepository(redis, prefix);
    expect((await buckets.take('acct-d', 1, 600)).allowed).toBe(true); // 10 per second
    expect((await buckets.take('acct-d', 1, 600)).allowed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect((await buckets.take('acct-d', 1, 600)).allowed).toBe(true);
  });

  it('turns a refusal into rate_limited with whole seconds to wait', async () => {
    const limiter = limiterOn(redis);
    await limiter.consume('acct-e');
    const refusal = await limiter.consume('acct-e').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ServiceError);
    expect((refusal as ServiceError).payload).toMatchObject({ code: 'rate_limited', retry_after_seconds: 30 });
  });

  it('fails fast as unavailable when Redis does not answer', async () => {
    const dead = new Redis({ port: 1, lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    const limiter = limiterOn(dead);
    const refusal = await limiter.consume('acct-f').catch((error: unknown) => error);
    expect((refusal as ServiceError).payload).toMatchObject({ code: 'unavailable' });
    dead.disconnect();
  });

  it('gives free data tools a bucket of their own, and get_usage none', async () => {
    const limiter = limiterOn(redis, { perMinute: 1, burst: 1 });
    await limiter.consume('acct-g', 'paid');
    for (let i = 0; i < 3; i++) await limiter.consume('acct-g', 'free_data');
    const refusal = (await limiter.consume('acct-g', 'free_data').catch((error: unknown) => error)) as ServiceError;
    expect(refusal.payload).toMatchObject({ code: 'rate_limited', retry_after_seconds: 1 });
    expect(refusal.message).toMatch(/free data tools/);
    for (let i = 0; i < 10; i++) await limiter.consume('acct-g', 'unlimited');
  });

  describe('scans in flight', () => {
    const never = new Promise<never>(() => undefined);
    const refusalOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as ServiceError);

    it('admits `inFlight` scans of one account at once, answers the next rate_limited, and frees a slot when a scan ends', async () => {
      const limiter = limiterOn(redis, undefined, { inFlight: 2, holdMs: 30_000 });
      let finish!: () => void;
      const first = limiter.scanning('acct-h', () => new Promise<void>((resolve) => (finish = resolve)));
      void limiter.scanning('acct-h', () => never);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const refusal = await refusalOf(limiter.scanning('acct-h', async () => 'ran'));
      expect(refusal?.payload).toMatchObject({ code: 'rate_limited' });
      expect(refusal?.payload.retry_after_seconds).toBeGreaterThanOrEqual(29);
      expect(await limiter.scanning('acct-i', async () => 'other account')).toBe('other account');
      finish();
      await first;
      expect(await limiter.scanning('acct-h', async () => 'ran')).toBe('ran');
    });

    it('keeps the slot of a call cut off by a timeout until it lapses (the scan still runs), but frees it after any other failure', async () => {
      const limiter = limiterOn(redis, undefined, { inFlight: 1, holdMs: 600 });
      await refusalOf(limiter.scanning('acct-j', () => Promise.reject(ServiceError.of('not_found', 'no such ad'))));
      await refusalOf(limiter.scanning('acct-j', () => Promise.reject(ServiceError.of('timeout', 'query took too long'))));
      const refusal = await refusalOf(limiter.scanning('acct-j', async () => 'ran'));
      expect(refusal?.payload).toMatchObject({ code: 'rate_limited', retry_after_seconds: 1 });
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(await limiter.scanning('acct-j', async () => 'ran')).toBe('ran');
    });

    it('never admits more than `inFlight` of many concurrent scans', async () => {
      const limiter = limiterOn(redis, undefined, { inFlight: 3, holdMs: 30_000 });
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, () => limiter.scanning('acct-k', () => new Promise((resolve) => setTimeout(() => resolve('ran'), 200))).catch(() => 'refused')),
      );
      expect(outcomes.filter((o) => o === 'ran')).toHaveLength(3);
    });
  });
});
