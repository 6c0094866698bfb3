import { Redis } from '@adintel/redis';
import { startPrivateRedis, type PrivateRedis } from '@adintel/testing';
import { ServiceClient, StreamKeys } from '../src';
import { Slow, startReplica, waitUntil } from './handlers';

jest.setTimeout(30_000);

describe('graceful close of a replica', () => {
  let redis: PrivateRedis;
  let probe: Redis;
  let client: ServiceClient;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    probe = new Redis(redis.url);
    client = new ServiceClient({ service: 'query', url: redis.url, timeoutMs: 10_000 });
  });

  afterAll(async () => {
    await client?.close();
    probe?.disconnect();
    await redis?.stop();
  });

  it('stops reading at once, finishes, answers and acks what is in flight, and leaves the rest to another replica', async () => {
    const leaving = await startReplica('leaving', { url: redis.url, claimIdleMs: 500, livenessWindowMs: 3_000, concurrency: 2 });
    const inFlight = [client.send(Slow, { ms: 700, tag: 'a' }), client.send(Slow, { ms: 700, tag: 'b' })];
    await waitUntil(() => (leaving.handled.get(Slow.pattern) ?? []).length === 2);

    const closing = leaving.close();
    const afterClose = client.send(Slow, { ms: 1, tag: 'later' });
    await closing;
    // close() returned only once both in-flight messages were answered and acked.
    await expect(Promise.all(inFlight)).resolves.toEqual([{ replica: 'leaving' }, { replica: 'leaving' }]);
    expect(((await probe.xpending(StreamKeys.requests('query'), 'query')) as [number])[0]).toBe(0);
    expect(leaving.handled.get(Slow.pattern)).toEqual(['a', 'b']);

    const staying = await startReplica('staying', { url: redis.url, claimIdleMs: 500, livenessWindowMs: 3_000 });
    try {
      await expect(afterClose).resolves.toEqual({ replica: 'staying' });
      expect(staying.handled.get(Slow.pattern)).toEqual(['later']);
    } finally {
      await staying.close();
    }
  });
});
