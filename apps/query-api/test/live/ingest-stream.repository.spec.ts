import { createRedis, type Redis } from '@adintel/redis';
import { startPrivateRedis, type PrivateRedis } from '@adintel/testing';
import {
  compareIds,
  IngestStreamRepository,
  LINE_MAX_BYTES,
  MAX_DELIVERIES,
  resentByAll,
  STREAM_MAX_BYTES,
} from '../../src/live/ingest-stream.repository';

/** The live door's Redis queries on a private redis-server: the bound, trimming, dead letters and re-sending. */
describe('IngestStreamRepository on a real Redis', () => {
  let redis: PrivateRedis;
  let raw: Redis;
  let repo: IngestStreamRepository;
  let stream: string;
  let n = 0;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    raw = createRedis({ url: redis.url, name: 'test' });
  });
  beforeEach(() => {
    stream = `ingest:test:${++n}`;
    repo = IngestStreamRepository.connect(redis.url, stream, 'test');
  });
  afterEach(async () => {
    await repo.close();
  });
  afterAll(async () => {
    raw?.disconnect();
    await redis?.stop();
  });

  it('adds only as many lines as the bound leaves room for, in order', async () => {
    expect(await repo.boundedAdd(['a', 'b', 'c'], 5)).toEqual({ added: 3 });
    expect(await repo.boundedAdd(['d', 'e', 'f'], 5)).toEqual({ added: 2, bound: 'entries' });
    expect(await repo.boundedAdd(['f'], 5)).toEqual({ added: 0, bound: 'entries' });
    const lines = ((await raw.xrange(stream, '-', '+')) as [string, string[]][]).map(([, fields]) => fields[1]);
    expect(lines).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('trims only entries every group has acknowledged', async () => {
    await repo.boundedAdd(['1', '2', '3', '4', '5', '6'], 100);
    await repo.ensureGroup('fast');
    await repo.ensureGroup('slow');
    const fast = await repo.read('fast', 'c1', '>', 10, 0);
    await repo.ack('fast', fast.map((s) => s.entry));
    const slow = await repo.read('slow', 'c1', '>', 4, 0);
    await repo.ack('slow', slow.slice(0, 2).map((s) => s.entry)); // 3 and 4 stay pending, 5 and 6 undelivered

    const needed = await repo.oldestNeeded(await repo.groups());
    expect(needed).toBe(slow[2]?.entry);
    await repo.trimBefore(needed ?? '0-0');
    expect((await raw.xrange(stream, '-', '+')).map(([id]) => id)).toEqual(fast.slice(2).map((s) => s.entry));

    await repo.ack('slow', slow.slice(2).map((s) => s.entry));
    const next = await repo.oldestNeeded(await repo.groups());
    expect(next).toBe(fast[4]?.entry); // the first entry never delivered to `slow`
    await repo.trimBefore(next ?? '0-0');
    expect(await repo.length()).toBe(2);
    expect(await repo.groups()).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'slow', pending: 0, lag: 2, lastDelivered: slow[3]?.entry })]),
    );
  });

  it('hands a dead consumer’s pending entries to another consumer of the group, in order', async () => {
    await repo.boundedAdd(['1', '2', '3'], 100);
    await repo.ensureGroup('g');
    await repo.read('g', 'dead', '>', 10, 0);
    expect(await repo.claim('g', 'alive', 60_000, 10)).toBe(0); // not idle long enough
    expect(await repo.claim('g', 'alive', 0, 10)).toBe(3);
    // The claim took the ids only: the read is their second delivery, and a batch delivered once before comes whole.
    expect((await repo.read('g', 'alive', '0', 10, 0)).map((s) => [s.line, s.deliveries])).toEqual([
      ['1', 2],
      ['2', 2],
      ['3', 2],
    ]);
    expect((await repo.consumers('g')).map((c) => [c.name, c.pending])).toEqual([
      ['alive', 3],
      ['dead', 0],
    ]);
  });

  it('parks a line once per source entry, and re-sends a dead letter exactly once', async () => {
    const sighting = { entry: '1-1', line: 'not json', deliveries: 1 };
    expect(await repo.park('g1', sighting, 'not valid JSON')).toBe(true);
    expect(await repo.park('g2', sighting, 'not valid JSON')).toBe(false); // another replica's group, same entry
    const [letter] = await repo.deadLetters(10);
    expect(letter).toMatchObject({ entry: '1-1', group: 'g1', reason: 'not valid JSON', line: 'not json' });
    const id = letter?.id ?? '';

    const outcomes = await Promise.all([repo.resend(id, 100), repo.resend(id, 100), repo.resend(id, 100)]);
    expect(outcomes.filter((o) => 'resent' in o)).toHaveLength(1);
    expect(outcomes.filter((o) => 'missing' in o)).toHaveLength(2);
    expect(await repo.length()).toBe(1);
    expect(await repo.deadLetterCount()).toBe(0);
    expect(await repo.resend('nonsense', 100)).toEqual({ id: 'nonsense', missing: true });
  });

  it('keeps a dead letter when the stream is full', async () => {
    await repo.boundedAdd(['x', 'y'], 2);
    await repo.park('g', { entry: '2-1', line: 'bad', deliveries: 1 }, 'why');
    const [letter] = await repo.deadLetters(1);
    expect(await repo.resend(letter?.id ?? '', 2)).toEqual({ id: letter?.id, full: 'entries' });
    expect(await repo.deadLetterCount()).toBe(1);
  });

  it('refuses a line over LINE_MAX_BYTES at the door, and stops at the stream bound in bytes, saying which', async () => {
    const long = 'x'.repeat(LINE_MAX_BYTES + 1);
    expect(await repo.boundedAdd(['a', long, 'b'], 100)).toEqual({ added: 1, bound: 'line' });
    expect(await repo.boundedAdd(['x'.repeat(LINE_MAX_BYTES)], 100)).toEqual({ added: 1 });
    // The byte bound: the stream's memory (MEMORY USAGE) plus the line must stay within it (1 MiB here; 256 MiB by default).
    const maxBytes = 1024 * 1024;
    const big = 'y'.repeat(LINE_MAX_BYTES);
    const outcome = await repo.boundedAdd(Array.from({ length: 30 }, () => big), 1_000_000, maxBytes);
    expect(outcome.bound).toBe('bytes');
    // Within one call the script counts the lines' bytes, not Redis's overhead per entry: a few percent over at most.
    expect(Number(await raw.memory('USAGE', stream))).toBeLessThanOrEqual(maxBytes * 1.05);
    expect(await repo.boundedAdd(['z'], 1_000_000, maxBytes)).toEqual({ added: 0, bound: 'bytes' });
    expect(outcome.added).toBeGreaterThanOrEqual(maxBytes / LINE_MAX_BYTES - 3);
    expect(await repo.boundedAdd(['tiny'], 1_000_000)).toEqual({ added: 1 }); // the default bound, 256 MiB
    expect(STREAM_MAX_BYTES).toBe(256 * 1024 * 1024);
  });

  it('parks, unread, a line over LINE_MAX_BYTES that bypassed the bounded add', async () => {
    await repo.ensureGroup('g');
    await raw.xadd(stream, '*', 'line', 'z'.repeat(LINE_MAX_BYTES + 1));
    await raw.xadd(stream, '*', 'line', 'fine');
    expect((await repo.read('g', 'c', '>', 10, 0)).map((s) => s.line)).toEqual(['fine']);
    const [letter] = await repo.deadLetters(10);
    expect(letter?.reason).toMatch(/^line over 65536 bytes \(65537\)/);
    expect(resentByAll(letter ?? { reason: '' })).toBe(false);
    expect((await repo.groups())[0]?.pending).toBe(1); // only 'fine', handed out
  });

  it('hands an entry out at most MAX_DELIVERIES times, then parks it with its reason; a twice-failed batch comes back one at a time', async () => {
    await repo.ensureGroup('g');
    await repo.boundedAdd(['poison', 'good'], 100);
    // Each read of its own pending entries, unacked, stands for a process that died on the batch.
    expect((await repo.read('g', 'c', '>', 10, 0)).map((s) => [s.line, s.deliveries])).toEqual([
      ['poison', 1],
      ['good', 1],
    ]);
    expect((await repo.read('g', 'c', '0', 10, 0)).map((s) => [s.line, s.deliveries])).toEqual([
      ['poison', 2],
      ['good', 2],
    ]);
    // Failed twice: one entry at a time, so the good line is not parked with the poison.
    expect((await repo.read('g', 'c', '0', 10, 0)).map((s) => [s.line, s.deliveries])).toEqual([['poison', MAX_DELIVERIES]]);
    const next = await repo.read('g', 'c', '0', 10, 0);
    expect(next.map((s) => [s.line, s.deliveries])).toEqual([['good', 3]]);
    const [letter] = await repo.deadLetters(10);
    expect(letter).toMatchObject({ line: 'poison', group: 'g', reason: expect.stringContaining('delivered 3 times') });
    expect(resentByAll(letter ?? { reason: '' })).toBe(false);
    expect(resentByAll({ reason: 'not valid JSON' })).toBe(true);
    await repo.ack('g', next.map((s) => s.entry));
    expect(await repo.read('g', 'c', '0', 10, 0)).toEqual([]);
  });

  it('orders stream ids numerically', () => {
    expect(['10-0', '9-5', '9-10', '100-0'].sort(compareIds)).toEqual(['9-5', '9-10', '10-0', '100-0']);
  });
});
