import { channel } from 'node:diagnostics_channel';
import { createRedis, type Redis } from '@adintel/redis';
import { startPrivateRedis, type PrivateRedis } from '@adintel/testing';
import { ConsumerGroup, GROUP_EVENTS_CHANNEL, oldestNeeded, readGroups, streamGroups, trimBefore, type GroupEntry, type GroupEvent } from '../src';

/**
 * The contract of the one consumer-group reader (the transport server and query-api's live door both use it), on a
 * private redis-server: delivery counts, parking after maxDeliveries, the one-at-a-time retry, take-over of a dead
 * consumer's entries, hand-back, and trimming only what every group acknowledged.
 */
describe('ConsumerGroup on a real Redis', () => {
  let redis: PrivateRedis;
  let commands: Redis;
  let reader: Redis;
  let stream: string;
  let n = 0;
  let parked: { entries: GroupEntry[]; reason: string }[];

  const group = (consumer: string, name = 'g', maxDeliveries: number | 'never' = 3) =>
    new ConsumerGroup(commands, {
      stream,
      group: name,
      consumer,
      startId: '0',
      ...(maxDeliveries === 'never'
        ? {}
        : {
            maxDeliveries,
            park: async (entries: readonly GroupEntry[], reason: string) => {
              parked.push({ entries: [...entries], reason });
            },
          }),
    });
  const add = async (...values: string[]) => {
    const ids: string[] = [];
    for (const value of values) ids.push((await commands.xadd(stream, '*', 'v', value)) as string);
    return ids;
  };
  const values = (entries: readonly GroupEntry[]) => entries.map((entry) => [entry.fields?.[1], entry.deliveries]);

  beforeAll(async () => {
    redis = await startPrivateRedis();
    commands = createRedis({ url: redis.url, name: 'test' });
    reader = createRedis({ url: redis.url, name: 'test:reader', blocking: true });
  });
  beforeEach(() => {
    stream = `test:stream:${++n}`;
    parked = [];
  });
  afterAll(async () => {
    commands?.disconnect();
    reader?.disconnect();
    await redis?.stop();
  });

  it('counts every delivery, parks an entry handed out maxDeliveries times, and retries a twice-failed batch one entry at a time', async () => {
    const consumer = group('c');
    await consumer.ensure();
    await consumer.ensure(); // BUSYGROUP is not an error
    await add('poison', 'good');
    expect(values(await consumer.readNew(reader, 10, 0))).toEqual([
      ['poison', 1],
      ['good', 1],
    ]);
    expect(values(await consumer.readOwnPending(10))).toEqual([
      ['poison', 2],
      ['good', 2],
    ]);
    expect(values(await consumer.readOwnPending(10))).toEqual([['poison', 3]]);
    expect(parked).toEqual([]);
    // The fourth delivery would be one too many: parked with its fields and reason, acked, and the next one read.
    expect(values(await consumer.readOwnPending(10))).toEqual([['good', 3]]);
    expect(parked).toEqual([{ entries: [expect.objectContaining({ fields: ['v', 'poison'], deliveries: 4 })], reason: expect.stringMatching(/^delivered 3 times/) }]);
    expect((await streamGroups(commands, stream))[0]).toMatchObject({ name: 'g', pending: 1 });
  });

  it('never parks without maxDeliveries (the transport requests: their deadline ends them)', async () => {
    const consumer = group('c', 'g', 'never');
    await consumer.ensure();
    await add('a');
    await consumer.readNew(reader, 10, 0);
    for (let i = 0; i < 5; i++) await consumer.readOwnPending(10);
    expect(values(await consumer.readOwnPending(10))).toEqual([['a', 7]]);
  });

  it('takes over a dead consumer’s entries by id without counting a delivery; claimIdle counts the claim and parks the spent', async () => {
    const dead = group('dead');
    await dead.ensure();
    await add('1', '2', '3');
    await dead.readNew(reader, 10, 0);
    const alive = group('alive');
    expect(await alive.takeOver(60_000, 10)).toBe(0); // not idle long enough
    expect(await alive.takeOver(0, 10)).toBe(3);
    expect(values(await alive.readOwnPending(10))).toEqual([
      ['1', 2],
      ['2', 2],
      ['3', 2],
    ]);

    const events: GroupEvent[] = [];
    const listen = (event: unknown) => events.push(event as GroupEvent);
    channel(GROUP_EVENTS_CHANNEL).subscribe(listen);
    try {
      const third = group('third');
      // Delivered twice so far: claim 3 is the last allowed, claim 4 parks them.
      expect(values(await third.claimIdle(0, () => 10))).toEqual([
        ['1', 3],
        ['2', 3],
        ['3', 3],
      ]);
      // Parked entries take no room: a consumer with room for 2 goes on claiming past them.
      expect(await group('fourth').claimIdle(0, () => 2)).toEqual([]);
      expect(parked.flatMap((p) => p.entries.map((e) => e.fields?.[1]))).toEqual(['1', '2', '3']);
      expect(await group('fifth').claimIdle(0, () => 0)).toEqual([]); // no room, nothing claimed
    } finally {
      channel(GROUP_EVENTS_CHANNEL).unsubscribe(listen);
    }
    expect(events).toEqual([
      { stream, group: 'g', event: 'claimed', count: 3 },
      { stream, group: 'g', event: 'parked', count: 2 },
      { stream, group: 'g', event: 'parked', count: 1 },
    ]);
  });

  it('keeps a live consumer’s entries, hands back what it will not run, and forgets consumers that are gone', async () => {
    const a = group('a');
    await a.ensure();
    const [id] = await add('x');
    await a.readNew(reader, 10, 0);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await a.keepAlive([id as string], 0);
    expect(await group('b').takeOver(25, 10)).toBe(0); // refreshed: not idle long enough
    await a.handBack([id as string], 60_000);
    expect(await group('b').takeOver(50_000, 10)).toBe(1);
    await a.forgetGone(0); // b still has it pending: kept
    expect((await a.consumers()).map((c) => c.name).sort()).toEqual(['a', 'b']);
    await group('b').ack([id as string]);
    await a.forgetGone(0);
    expect((await a.consumers()).map((c) => c.name)).toEqual(['a']);
    await a.forgetSelfIfIdle();
    expect(await a.consumers()).toEqual([]);
  });

  it('reads several streams in one blocking read, and trims only what every group acknowledged', async () => {
    const other = `${stream}:other`;
    const first = group('c', 'fast');
    const second = new ConsumerGroup(commands, { stream: other, group: 'fast', consumer: 'c', startId: '$' });
    await first.ensure();
    await second.ensure();
    await add('1', '2', '3', '4');
    await commands.xadd(other, '*', 'v', 'o');
    const read = await readGroups(reader, [first, second], 10, 0);
    expect(read.map(([g, entries]) => [g.stream, entries.length])).toEqual([
      [stream, 4],
      [other, 1],
    ]);
    const [[, fastEntries] = [first, []]] = read;
    await first.ack(fastEntries.map((e) => e.id));
    const slow = group('c', 'slow');
    await slow.ensure();
    const slowEntries = await slow.readNew(reader, 2, 0);
    await slow.ack([slowEntries[0]?.id as string]);
    const needed = await oldestNeeded(commands, stream, await streamGroups(commands, stream));
    expect(needed).toBe(slowEntries[1]?.id); // pending with `slow`
    expect(await trimBefore(commands, stream, needed as string)).toBe(1);
    expect(await commands.xlen(stream)).toBe(3);
  });
});
