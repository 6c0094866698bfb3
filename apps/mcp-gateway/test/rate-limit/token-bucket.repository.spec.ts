import { randomUUID } from 'node:crypto';
import { Redis } from '@adintel/redis';
import { ServiceError } from '@adintel/contracts';
import { TEST_REDIS_URL } from '../support/gateway-harness';
import { TokenBucketRepository } from '../../src/rate-limit/token-bucket.repository';
import { RateLimiterService } from '../../src/rate-limit/rate-limiter.service';

describe('token bucket on real Redis (db 3)', () => {
  let redis: Redis;
  const prefix = `gw-test-${randomUUID()}:`;

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
    expect(takes[2].remaining).toBe(0);
    // 60 per minute = one token per second
    expect(takes[3].retryAfterMs).toBeGreaterThan(0);
    expect(takes[3].retryAfterMs).toBeLessThanOrEqual(1000);
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
    const limiter = new RateLimiterService(new TokenBucketRepository(redis, prefix), { perMinute: 2, burst: 1 });
    await limiter.consume('acct-e');
    const refusal = await limiter.consume('acct-e').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ServiceError);
    expect((refusal as ServiceError).payload).toMatchObject({ code: 'rate_limited', retry_after_seconds: 30 });
  });

  it('fails fast as unavailable when Redis does not answer', async () => {
    const dead = new Redis({ port: 1, lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    const limiter = new RateLimiterService(new TokenBucketRepository(dead, prefix), { perMinute: 2, burst: 1 });
    const refusal = await limiter.consume('acct-f').catch((error: unknown) => error);
    expect((refusal as ServiceError).payload).toMatchObject({ code: 'unavailable' });
    dead.disconnect();
  });
});
