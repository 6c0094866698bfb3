import { Redis } from '@adintel/redis';
import { startPrivateRedis, waitUntil, type PrivateRedis } from '@adintel/testing';
import { ParkedEvents, ServiceClient, StreamKeys } from '../src';
import { Flaky, failingReplicas, Noted, startReplica, type Replica } from './handlers';

jest.setTimeout(60_000);

/** An operator lists the events a service parked and re-sends them once the cause is fixed. */
describe('parked events', () => {
  let redis: PrivateRedis;
  let probe: Redis;
  let client: ServiceClient;
  let parked: ParkedEvents;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    redis = await startPrivateRedis();
    probe = new Redis(redis.url);
    client = new ServiceClient({ service: 'query', url: redis.url, timeoutMs: 8_000 });
    parked = ParkedEvents.connect(redis.url);
  });

  afterAll(async () => {
    for (const replica of replicas.splice(0)) await replica.close();
    await parked?.close();
    await client?.close();
    probe?.disconnect();
    await redis?.stop();
  });

  it('re-sends a parked event to the service that failed it only, once, and it runs there', async () => {
    // Two services subscribe to the events; only query's replica fails on them.
    const query = await startReplica('query-1', { service: 'query', url: redis.url, claimIdleMs: 500, livenessWindowMs: 1_500, maxEventDeliveries: 2 });
    const metering = await startReplica('metering-1', { service: 'metering', url: redis.url, claimIdleMs: 500, livenessWindowMs: 1_500 });
    replicas.push(query, metering);
    failingReplicas.add('query-1');
    await client.emit(Flaky, { id: 'flaky-1' });
    await waitUntil(async () => (await probe.xlen(StreamKeys.deadEvents)) === 1, 15_000);
    expect(metering.handled.get(Flaky.pattern)).toEqual(['flaky-1']);
    expect(query.handled.get(Flaky.pattern)).toEqual(['flaky-1', 'flaky-1']);

    const [event] = await parked.list();
    expect(event).toMatchObject({ group: 'query', pattern: Flaky.pattern, data: { id: 'flaky-1' }, deliveries: 3 });
    expect(event?.parkedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await parked.list('metering')).toEqual([]);

    failingReplicas.delete('query-1');
    const id = (event as { id: string }).id;
    const [outcome] = await parked.resend([id]);
    expect(outcome).toEqual({ id, resent: expect.stringMatching(/^\d+-\d+$/) });
    await waitUntil(async () => (query.handled.get(Flaky.pattern) ?? []).length === 3);
    expect(await parked.list()).toEqual([]);
    // The other service saw the event once, the first time; a second re-send finds nothing to send.
    await client.emit(Noted, { id: 'after' });
    await waitUntil(async () => (metering.handled.get(Noted.pattern) ?? []).includes('after'));
    expect(metering.handled.get(Flaky.pattern)).toEqual(['flaky-1']);
    expect(await parked.resend([id])).toEqual([{ id, missing: true }]);
  });

  it('reports ids that are not parked, or not stream ids at all, without sending anything', async () => {
    const before = await probe.xlen(StreamKeys.events);
    expect(await parked.resend(['1-0', 'not-an-id'])).toEqual([
      { id: '1-0', missing: true },
      { id: 'not-an-id', missing: true },
    ]);
    expect(await probe.xlen(StreamKeys.events)).toBe(before);
  });

  it('lists but does not re-send a parked entry that is not a transport event', async () => {
    const id = (await probe.xadd(StreamKeys.deadEvents, '*', 'junk', 'x', 'group', 'query', 'entry', '5-0', 'deliveries', '6')) as string;
    expect(await parked.list()).toContainEqual({ id, parkedAt: expect.any(String), group: 'query', entry: '5-0', deliveries: 6 });
    expect(await parked.resend([id])).toEqual([{ id, unreadable: true }]);
    expect(await parked.list()).toHaveLength(1);
  });
});
