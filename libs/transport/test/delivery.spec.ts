import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Redis } from '@adintel/redis';
import { startPrivateRedis, waitUntil, type PrivateRedis } from '@adintel/testing';
import { TRANSPORT_HANDLED_CHANNEL, TRANSPORT_SENT_CHANNEL } from '@adintel/observability';
import { ServiceClient, StreamKeys, type TransportHandledEvent, type TransportSentEvent } from '../src';
import { Echo, Noted, Poison, Slow, startReplica, type Replica } from './handlers';

jest.setTimeout(60_000);

const REQUESTS = StreamKeys.requests('query');

/** Replicas sharing one service: load balancing, claims after a crash, deadlines, events, liveness. */
describe('delivery across replicas', () => {
  let redis: PrivateRedis;
  let probe: Redis;
  let client: ServiceClient;
  const replicas: Replica[] = [];
  const handledEvents: TransportHandledEvent[] = [];
  const sentEvents: TransportSentEvent[] = [];
  const onHandled = (event: unknown) => handledEvents.push(event as TransportHandledEvent);
  const onSent = (event: unknown) => sentEvents.push(event as TransportSentEvent);

  const start = async (name: string, options: { concurrency?: number; maxEventDeliveries?: number } = {}) => {
    const replica = await startReplica(name, { url: redis.url, claimIdleMs: 500, livenessWindowMs: 1_500, ...options });
    replicas.push(replica);
    return replica;
  };
  const stopAll = async () => {
    for (const replica of replicas.splice(0)) await replica.close();
  };
  /** A replica that took an entry and died: it read it (now pending under its name) and never acked. */
  const ghostTakes = async () => {
    await probe.set(StreamKeys.alive('query'), 'ghost', 'PX', 5_000); // it was alive a moment ago
    let taken: unknown = null;
    await waitUntil(async () => {
      taken = await probe.xreadgroup('GROUP', 'query', 'ghost', 'COUNT', 10, 'STREAMS', REQUESTS, '>');
      return taken !== null;
    });
  };

  beforeAll(async () => {
    redis = await startPrivateRedis();
    probe = new Redis(redis.url);
    client = new ServiceClient({ service: 'query', url: redis.url, timeoutMs: 8_000 });
    subscribe(TRANSPORT_HANDLED_CHANNEL, onHandled);
    subscribe(TRANSPORT_SENT_CHANNEL, onSent);
  });

  afterEach(stopAll);

  afterAll(async () => {
    unsubscribe(TRANSPORT_HANDLED_CHANNEL, onHandled);
    unsubscribe(TRANSPORT_SENT_CHANNEL, onSent);
    await client?.close();
    probe?.disconnect();
    await redis?.stop();
  });

  it('hands each request to exactly one of the replicas, and both share the work', async () => {
    const [a, b] = [await start('a'), await start('b')];
    const texts = Array.from({ length: 300 }, (_, i) => `m${i}`);
    const replies = await Promise.all(texts.map((text) => client.send(Slow, { ms: 5, tag: text })));
    const handledByA = a.handled.get(Slow.pattern) ?? [];
    const handledByB = b.handled.get(Slow.pattern) ?? [];
    expect([...handledByA, ...handledByB].sort()).toEqual([...texts].sort());
    expect(handledByA.length).toBeGreaterThan(0);
    expect(handledByB.length).toBeGreaterThan(0);
    expect(replies.filter((r) => r.replica === 'a')).toHaveLength(handledByA.length);
  });

  it('lets a live replica claim what a dead one had taken, and answer within the caller’s timeout', async () => {
    const answer = client.send(Echo, { text: 'orphan' });
    await ghostTakes();
    const rescuer = await start('rescuer');
    await expect(answer).resolves.toMatchObject({ text: 'orphan', replica: 'rescuer' });
    expect(rescuer.handled.get(Echo.pattern)).toEqual(['orphan']);
    await waitUntil(async () => ((await probe.xpending(REQUESTS, 'query')) as [number])[0] === 0);
  });

  it('drops a request whose caller gave up: acked, never run late', async () => {
    const impatient = new ServiceClient({ service: 'query', url: redis.url, timeoutMs: 300 });
    try {
      handledEvents.length = 0;
      const answer = impatient.send(Echo, { text: 'too late' });
      await ghostTakes();
      await expect(answer).rejects.toMatchObject({ code: 'timeout' });
      const rescuer = await start('rescuer');
      await waitUntil(() => handledEvents.some((e) => e.pattern === Echo.pattern && e.outcome === 'expired'));
      await waitUntil(async () => ((await probe.xpending(REQUESTS, 'query')) as [number])[0] === 0);
      expect(rescuer.handled.get(Echo.pattern)).toBeUndefined();
      expect(sentEvents).toContainEqual(expect.objectContaining({ pattern: Echo.pattern, outcome: 'timeout' }));
    } finally {
      await impatient.close();
    }
  });

  it('keeps events while no subscriber runs; each is then processed once by one replica', async () => {
    await (await start('first')).close(); // the service subscribed once: its group exists
    replicas.length = 0;
    const ids = Array.from({ length: 40 }, (_, i) => `agent-${i}`);
    for (const id of ids) await client.emit(Noted, { id });
    expect(await client.eventBacklog()).toBe(40);
    const [c, d] = [await start('c'), await start('d')];
    await waitUntil(async () => (await client.eventBacklog()) === 0);
    const processed = [...(c.handled.get(Noted.pattern) ?? []), ...(d.handled.get(Noted.pattern) ?? [])];
    expect(processed.sort()).toEqual([...ids].sort());
  });

  it('parks an event whose handler fails on every delivery, after the last one, and goes on with the others', async () => {
    const replica = await start('e', { maxEventDeliveries: 3 });
    await client.emit(Poison, { id: 'poison-1' });
    await client.emit(Noted, { id: 'fine-1' });
    await waitUntil(async () => (await probe.xlen(StreamKeys.deadEvents)) === 1, 15_000);
    expect(replica.handled.get(Poison.pattern)).toEqual(['poison-1', 'poison-1', 'poison-1']);
    expect(replica.handled.get(Noted.pattern)).toEqual(['fine-1']);
    const [[, fields]] = (await probe.xrange(StreamKeys.deadEvents, '-', '+')) as [string, string[]][] as [[string, string[]]];
    const parked = Object.fromEntries(Array.from({ length: fields.length / 2 }, (_, i) => [fields[2 * i], fields[2 * i + 1]]));
    expect(parked).toMatchObject({ p: Poison.pattern, d: JSON.stringify({ id: 'poison-1' }), group: 'query', deliveries: '4' });
    await waitUntil(async () => (await client.eventBacklog()) === 0);
  });

  it('fails fast while every replica is hung, and recovers by itself', async () => {
    await probe.del(StreamKeys.alive('query'));
    await start('hung', { concurrency: 1 });
    const stuck = client.send(Slow, { ms: 4_000 });
    // Its only slot is taken and nothing finishes: it stops proving it is alive.
    await waitUntil(async () => (await probe.exists(StreamKeys.alive('query'))) === 0, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // the client's cached answer expires
    const started = Date.now();
    await expect(client.send(Echo, { text: 'queued?' })).rejects.toMatchObject({ code: 'unavailable' });
    expect(Date.now() - started).toBeLessThan(1_000); // not the 8 s timeout
    expect(sentEvents).toContainEqual(expect.objectContaining({ pattern: Echo.pattern, outcome: 'unavailable' }));
    await expect(stuck).resolves.toMatchObject({ replica: 'hung' });
    await waitUntil(async () => (await client.send(Echo, { text: 'back' }).then(() => true, () => false)), 5_000);
  });

  it('publishes one handled and one sent event per message on diagnostics channels', async () => {
    await start('observed');
    handledEvents.length = 0;
    sentEvents.length = 0;
    await client.send(Echo, { text: 'counted' });
    await waitUntil(() => handledEvents.length === 1);
    expect(handledEvents).toEqual([{ pattern: Echo.pattern, outcome: 'ok', durationMs: expect.any(Number) }]);
    expect(sentEvents).toEqual([{ pattern: Echo.pattern, outcome: 'ok', durationMs: expect.any(Number) }]);
  });
});
