import { Redis } from '@adintel/redis';
import { startPrivateRedis, waitUntil, type PrivateRedis } from '@adintel/testing';
import { ServiceClient, StreamKeys, type ConsumerGroup, type GroupEntry } from '../src';
import { Echo, Slow, startReplica } from './handlers';

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

  it('hands back what it had read but not started: another replica claims it at once, not after the claim delay', async () => {
    // A claim delay far longer than this test waits: only the hand-back can make the entry claimable in time.
    const options = { url: redis.url, claimIdleMs: 8_000, livenessWindowMs: 3_000 };
    const leaving = await startReplica('leaving', options);
    const slow = client.send(Slow, { ms: 1_500, tag: 'in flight' });
    await waitUntil(() => (leaving.handled.get(Slow.pattern) ?? []).length === 1);
    const closing = leaving.close(); // waits for the slow handler

    // A message that reached the leaving replica's read just as it closed (read, not started):
    const late = client.send(Echo, { text: 'late' });
    const stream = StreamKeys.requests('query');
    let read: [string, [string, string[]][]][] | null = null;
    await waitUntil(async () => {
      read = (await probe.xreadgroup('GROUP', 'query', leaving.server.consumerName, 'COUNT', 1, 'STREAMS', stream, '>')) as typeof read;
      return read !== null;
    });
    const server = leaving.server as unknown as { accept(group: unknown, entries: GroupEntry[]): void; groups: ConsumerGroup[] };
    const [[, entries]] = read as unknown as [[string, [string, string[]][]]];
    const group = server.groups.find((candidate) => candidate.stream === stream);
    server.accept.call(
      server,
      group,
      entries.map(([id, fields]) => ({ id, fields, deliveries: 1 })),
    );

    const staying = await startReplica('staying', options);
    try {
      await expect(slow).resolves.toEqual({ replica: 'leaving' });
      await closing;
      await waitUntil(() => (staying.handled.get(Echo.pattern) ?? []).length === 1, 5_000);
      await expect(late).resolves.toMatchObject({ text: 'late', replica: 'staying' });
      expect(leaving.handled.get(Echo.pattern)).toBeUndefined();
    } finally {
      await staying.close();
    }
  });
});
