import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryMessages, type MessageDefinition, type RequestOf, type ResponseOf, ServiceError } from '@adintel/contracts';
import { createRedis, type Redis } from '@adintel/redis';
import { startApp, startPrivateRedis, waitUntil, WORKSPACE_ROOT, type AppProcess, type PrivateRedis } from '@adintel/testing';
import { ServiceClient } from '@adintel/transport';
import { BOUNDED_ADD_SCRIPT, STREAM_MAX_BYTES } from '../../src/live/ingest-stream.repository';

jest.setTimeout(180_000);

const SEEDED = 2_000;
const STREAM = 'ingest:ads';
const GROUP = 'query-api:live-test';
const CLI = join(WORKSPACE_ROOT, 'dist/apps/query-api/cli.js');

type Line = Record<string, unknown> & { id: string };

/**
 * The live door with real processes: query-api (built) on a seeded SQLite store, a private redis-server with an
 * append-only file, the CLI as producer, and ioredis as a producer in any language would be (XADD `line`).
 */
describe('live sightings through the stream', () => {
  let redis: PrivateRedis;
  let producer: Redis;
  let app: AppProcess;
  let client: ServiceClient;
  let dataDir: string;
  let demo: Line[];
  let env: Record<string, string>;

  const send = <M extends MessageDefinition>(message: M, request: RequestOf<M>): Promise<ResponseOf<M>> => client.send(message, request);
  const adOrNull = (id: string) =>
    send(QueryMessages.getAd, { id }).catch((error: unknown) => {
      if (error instanceof ServiceError && error.code === 'not_found') return null;
      throw error;
    });
  const cli = (args: string[], extraEnv: Record<string, string> = {}, input?: string) =>
    spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env, ...extraEnv }, encoding: 'utf8', input });
  const xadd = (line: string) => producer.xadd(STREAM, '*', 'line', line) as Promise<string>;
  const metric = async (name: string): Promise<number> => {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    const row = text.split('\n').find((l) => l.startsWith(`${name} `));
    return row ? Number(row.slice(row.lastIndexOf(' ') + 1)) : 0;
  };
  const groupState = async () => {
    const groups = (await producer.xinfo('GROUPS', STREAM)) as (string | number)[][];
    const mine = groups.find((g) => g[g.indexOf('name') + 1] === GROUP) ?? [];
    return { pending: Number(mine[mine.indexOf('pending') + 1]), lag: Number(mine[mine.indexOf('lag') + 1]) };
  };
  const caughtUp = async () => {
    const state = await groupState();
    return state.pending === 0 && state.lag === 0;
  };
  const startQueryApi = () => startApp({ name: 'query-api', env, readyPath: '/readyz' });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'query-api-live-'));
    redis = await startPrivateRedis({ appendOnlyDir: dataDir });
    env = { DATA_DIR: join(dataDir, 'query'), REDIS_URL: redis.url, QUERY_WORKERS: '1', LOG_LEVEL: 'warn', INGEST_GROUP: GROUP, MEDIA_FETCH: 'true' };
    expect(cli(['seed', '--count', String(SEEDED)]).status).toBe(0);
    // The same demo ads as the store holds (same count, same seed): the lines re-sightings start from.
    const demoFile = join(dataDir, 'demo.ndjson');
    expect(cli(['generate', '--out', demoFile, '--count', String(SEEDED)]).status).toBe(0);
    demo = readFileSync(demoFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
    producer = createRedis({ url: redis.url, name: 'test-producer' });
    app = await startQueryApi();
    client = new ServiceClient({ service: 'query', url: redis.url, timeoutMs: 10_000 });
    // A seed that renders its demo pictures (about 24 ms of CPU each), then query-api's readiness wait (up to 120 s):
    // in CI runs at load 30 this hook, or the app's former 30 s wait, failed every test of the suite.
  }, 420_000);

  afterAll(async () => {
    await client?.close();
    await app?.stop();
    producer?.disconnect();
    await redis?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const base = (i: number): Line => demo[i] as Line;
  const freshAd = (id: string, word: string): Line => ({ ...base(0), id, title: `${word} offer`, body: `the ${word} body` });

  it('makes a new ad visible within seconds of its XADD, and says how fresh the data is', async () => {
    const added = Date.now();
    const entry = await xadd(JSON.stringify(freshAd('live-new-1', 'quokkafresh')));
    // The freshness docs/live-data.md promises (p95 under 5 s) is the live benchmark's to measure, on a machine it
    // calibrates; here the bound is one a 2-core CI machine at load 30 meets (2.4 s seen here beside 30 busy loops)
    // and a stuck consumer or a batch interval of minutes does not (waitUntil fails past it). The time is printed.
    await waitUntil(async () => (await adOrNull('live-new-1')) !== null, 30_000, 50);
    process.stdout.write(`one new ad visible ${((Date.now() - added) / 1000).toFixed(2)} s after its XADD\n`);
    const found = await send(QueryMessages.searchAds, { q: 'quokkafresh' });
    expect(found.data.map((ad) => ad.id)).toEqual(['live-new-1']);

    const catalog = await send(QueryMessages.catalog, {});
    expect(catalog.data_as_of).toBe('2026-11-15');
    expect(Date.parse(catalog.data_updated_at ?? '')).toBeGreaterThanOrEqual(Number(entry.split('-')[0]));
    expect(await metric('adintel_ingest_sightings_total{outcome="added"}')).toBeGreaterThanOrEqual(1);
    expect(await metric('adintel_ingest_freshness_seconds_count')).toBeGreaterThanOrEqual(1);
  });

  it('names its threads for top -H and /proc: the live writer and each query worker', async () => {
    // The writer's thread starts with the first batch: a re-delivered line makes one (applied as unchanged).
    const batches = await metric('adintel_ingest_batch_size_count');
    await xadd(JSON.stringify(base(5)));
    await waitUntil(async () => (await metric('adintel_ingest_batch_size_count')) > batches, 30_000, 50);
    const names = readdirSync(`/proc/${app.pid}/task`).map((tid) => readFileSync(`/proc/${app.pid}/task/${tid}/comm`, 'utf8').trim());
    expect(names).toEqual(expect.arrayContaining(['MainThread', 'live-writer', 'query-worker-1']));
  });

  it('moves the ad, its advertiser record, "today" and the trends with a re-sighting', async () => {
    const ad = base(1);
    const advertiserId = (ad['advertiser'] as { id: string }).id;
    const before = await send(QueryMessages.getAdvertiser, { id: advertiserId });
    expect(before.last_seen_date <= '2026-11-15').toBe(true);
    const resighted = {
      ...ad,
      last_seen_date: '2026-11-16',
      status_today: 'active',
      activity_days_amount: Number(ad['activity_days_amount']) + 1,
      impressions: Number(ad['impressions']) + 1_000,
    };
    await xadd(JSON.stringify(resighted));
    await waitUntil(async () => (await adOrNull(ad.id))?.last_seen_date === '2026-11-16', 10_000, 50);
    expect(await send(QueryMessages.getAd, { id: ad.id })).toMatchObject({ status_today: 'active', impressions: resighted.impressions });
    expect((await send(QueryMessages.getAdvertiser, { id: advertiserId })).last_seen_date).toBe('2026-11-16');
    await waitUntil(async () => (await send(QueryMessages.catalog, {})).data_as_of === '2026-11-16', 10_000, 100);
    const timeline = await send(QueryMessages.trends, { dimension: 'timeline', limit: 3 });
    expect(timeline.window.date_to).toBe('2026-11-16');
    expect(timeline.data.find((row) => row.key === '2026-11-16')?.ads).toBeGreaterThanOrEqual(1);
  });

  it('moves bad lines with their reason to the dead-letter stream and applies the good ones around them', async () => {
    const rejectedBefore = await metric('adintel_ingest_rejected_total{stage="parse"}');
    await xadd(JSON.stringify(freshAd('live-good-a', 'wombatgood')));
    const notJson = await xadd('{"id": "live-bad-1", oops');
    const invalid = await xadd(JSON.stringify({ ...freshAd('live-bad-2', 'x'), countries: ['usa'] }));
    const noLine = (await producer.xadd(STREAM, '*', 'text', 'hello')) as string;
    await xadd(JSON.stringify(freshAd('live-good-b', 'wombatgood')));
    await waitUntil(async () => (await adOrNull('live-good-b')) !== null && (await adOrNull('live-good-a')) !== null, 10_000, 50);
    expect(await adOrNull('live-bad-2')).toBeNull();

    const listed = cli(['dead-letters']);
    expect(listed.status).toBe(0);
    const letters = listed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; entry: string; reason: string; line: string });
    expect(letters.map((l) => l.entry)).toEqual([notJson, invalid, noLine]);
    expect(letters[0]?.reason).toBe('not valid JSON');
    expect(letters[1]?.reason).toMatch(/countries.*must be an upper-case ISO 3166-1 alpha-2 code/);
    expect(letters[2]?.reason).toMatch(/no `line` field/);
    expect(await metric('adintel_ingest_rejected_total{stage="parse"}')).toBe(rejectedBefore + 3);

    // Re-sending moves a dead letter back exactly once; still bad, it is parked again under a new entry.
    const first = letters[0] as { id: string; line: string };
    expect(cli(['dead-letters', '--resend', first.id]).status).toBe(0);
    const again = cli(['dead-letters', '--resend', first.id]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/not a dead letter/);
    await waitUntil(async () => {
      const now = cli(['dead-letters']).stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; line: string });
      return now.length === 3 && now.filter((l) => l.line === first.line).length === 1 && !now.some((l) => l.id === first.id);
    }, 10_000, 200);
  });

  it('applies a new creative at once with its picture pending, which a picture worker process makes; parks a bundle path', async () => {
    const known = base(0);
    const knownMedia = (await send(QueryMessages.getAd, { id: known.id })).media;
    expect(knownMedia[0]).toMatchObject({ file: 'held', bytes: expect.any(Number) }); // rendered by the seed
    const picture = (url: string) => [{ type: 'image', url, width: 360, height: 360, duration_seconds: null }];
    const newCreative = {
      ...freshAd('live-media-new', 'platypusmedia'),
      creative: { id: 'cr_live_media', format: 'image', title: 'Platypus media' },
      media: picture('demo:cr_live_media/0?brand=Live+Platypus&headline=Platypus+media&cta=Shop+now&category=ecommerce_and_retail&shape=square'),
    };
    await xadd(JSON.stringify(newCreative));
    await xadd(JSON.stringify(freshAd('live-media-known', 'echidnamedia'))); // the known creative's demo: URL
    const bundlePath = await xadd(JSON.stringify({ ...freshAd('live-media-path', 'x'), media: picture('media/cr_1/0.png') }));
    await xadd(JSON.stringify({ ...freshAd('live-media-private', 'x'), media: picture('http://127.0.0.1:9/0.png') }));
    await waitUntil(async () => (await adOrNull('live-media-new')) !== null && (await adOrNull('live-media-private')) !== null, 20_000, 50);

    // No picture worker runs yet: the ads are there, their pictures pending, said so in the record and by the file read.
    expect((await send(QueryMessages.getAd, { id: 'live-media-new' })).media[0]).toMatchObject({ file: 'pending', bytes: null, thumbnail_url: null });
    await expect(send(QueryMessages.locateMedia, { creative_id: 'cr_live_media', index: 0, variant: 'thumbnail' })).rejects.toThrow(/pending/);
    // A new ad of a known creative keeps the file the store holds for that URL (nothing queued).
    expect((await send(QueryMessages.getAd, { id: 'live-media-known' })).media[0]?.bytes).toBe(knownMedia[0]?.bytes);

    const worker = spawn(process.execPath, [CLI, 'media-worker'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await waitUntil(async () => (await send(QueryMessages.getAd, { id: 'live-media-new' })).media[0]?.file === 'held', 30_000, 100);
      const fresh = await send(QueryMessages.getAd, { id: 'live-media-new' });
      expect(fresh.media[0]).toMatchObject({ width: 360, height: 360, thumbnail_url: expect.stringMatching(/\/media\/0\/thumbnail$/) });
      expect(fresh.media[0]?.bytes).toBeGreaterThan(1_000);
      const file = await send(QueryMessages.locateMedia, { creative_id: 'cr_live_media', index: 0, variant: 'thumbnail' });
      expect(file.key).toMatch(/\.webp$/);
      // MEDIA_FETCH is on in this suite, and the guard refuses a loopback address before connecting: refused for good.
      await waitUntil(async () => (await send(QueryMessages.getAd, { id: 'live-media-private' })).media[0]?.file === 'failed', 30_000, 100);
    } finally {
      worker.kill('SIGTERM');
    }

    await waitUntil(async () => cli(['dead-letters']).stdout.includes(bundlePath), 10_000, 100);
    const letters = cli(['dead-letters']).stdout.trim().split('\n').map((l) => JSON.parse(l) as { entry: string; reason: string });
    expect(letters.find((l) => l.entry === bundlePath)?.reason).toBe(
      'media[0]: a media path needs a bundle folder (a live line names media by a demo: or http(s) URL)',
    );
    expect(await adOrNull('live-media-path')).toBeNull();
  });

  it('applies every sighting exactly once across a SIGKILL mid-batch, while the CLI waits on backpressure', async () => {
    // 600 new ads and three sightings each of 300 known ads, interleaved; the last sighting of each id must win.
    const lines: Line[] = [];
    for (let i = 0; i < 600; i++) {
      lines.push(freshAd(`live-bulk-${i}`, `bulk${i}`));
      // Sighting `bump` of known ad k goes out at step k + 100 * (bump - 1): later sightings later in the stream.
      for (const bump of [1, 2, 3]) {
        const k = i - 100 * (bump - 1);
        const ad = k >= 0 && k < 300 ? base(10 + k) : undefined;
        if (ad) lines.push({ ...ad, impressions: Number(ad['impressions']) + bump });
      }
    }
    const lastOf = new Map(lines.map((l) => [l.id, l]));
    const file = join(dataDir, 'bulk.ndjson');
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const adsBefore = (await send(QueryMessages.countAds, {})).total;

    const bound = 200;
    const publisher = spawn(process.execPath, [CLI, 'ingest', '--live', file], {
      env: { ...process.env, ...env, INGEST_STREAM_MAX_LEN: String(bound) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    publisher.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const published = new Promise<number | null>((resolve) => publisher.once('exit', resolve));
    let longest = 0;
    // A sample in flight when a failed assertion ends the suite (and the producer closes) is dropped, not unhandled.
    const sampler = setInterval(() => void producer.xlen(STREAM).then((n) => (longest = Math.max(longest, n)), () => undefined), 20);

    const batchesBefore = await metric('adintel_ingest_batch_size_count');
    await waitUntil(async () => (await metric('adintel_ingest_batch_size_count')) >= batchesBefore + 2, 30_000, 20);
    // Killed while a batch is read and not acked (its entries pending with this consumer): the restart must claim them.
    // The consumer may be between batches (the batch interval, a maintenance pass): on a loaded 2-core CI machine the
    // read has been seen to start more than 10 s later.
    await waitUntil(async () => (await groupState()).pending > 0, 30_000, 5);
    await app.stop('SIGKILL');
    expect((await groupState()).pending).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // the stream fills to its bound: the CLI waits
    app = await startQueryApi();
    expect(await published).toBe(0);
    clearInterval(sampler);
    expect(stderr).toMatch(new RegExp(`published ${lines.length} lines to ${STREAM} in [\\d.]+ s \\(\\d+ lines/s; waited [\\d.]+ s on backpressure, at the stream's bound of entries\\)`));
    expect(Number(/waited ([\d.]+) s/.exec(stderr)?.[1])).toBeGreaterThan(0);
    expect(longest).toBeLessThanOrEqual(bound);

    await waitUntil(caughtUp, 60_000, 100);
    expect(await groupState()).toEqual({ pending: 0, lag: 0 });
    // The killed run's consumer name was taken over and removed: one consumer per SQLite group.
    expect(await producer.xinfo('CONSUMERS', STREAM, GROUP)).toHaveLength(1);
    expect((await send(QueryMessages.countAds, {})).total).toBe(adsBefore + 600);
    for (const [id, line] of lastOf) {
      const stored = await send(QueryMessages.getAd, { id });
      expect({ id, impressions: stored.impressions, title: stored.title }).toEqual({ id, impressions: line['impressions'], title: line['title'] });
    }
    // Acknowledged entries are trimmed: the stream keeps only what some group still needs.
    await waitUntil(async () => (await producer.xlen(STREAM)) === 0, 10_000, 100);
  });

  it('resumes after a Redis restart (append-only file), and publishes standard input', async () => {
    await redis.restart();
    await waitUntil(async () => ((await producer.xinfo('GROUPS', STREAM).catch(() => [])) as unknown[]).length === 1, 10_000, 100);
    const piped = cli(['ingest', '--live', '-'], {}, `${JSON.stringify(freshAd('live-after-restart', 'numbatpiped'))}\n\n`);
    expect(piped.status).toBe(0);
    expect(piped.stderr).toMatch(/published 1 lines/);
    await waitUntil(async () => (await adOrNull('live-after-restart').catch(() => null)) !== null, 20_000, 100);
    await waitUntil(caughtUp, 10_000, 100);

    const status = JSON.parse(cli(['live-status']).stdout) as { length: number; max_length: number; groups: { name: string }[] };
    expect(status).toMatchObject({ max_length: 100_000, groups: [expect.objectContaining({ name: GROUP, pending: 0 })] });
  });

  it('paces the CLI with --rate', async () => {
    const file = join(dataDir, 'paced.ndjson');
    writeFileSync(file, `${demo.slice(100, 130).map((l) => JSON.stringify(l)).join('\n')}\n`);
    const paced = cli(['ingest', '--live', file, '--rate', '20']);
    expect(paced.status).toBe(0);
    const [, lines, seconds] = /published (\d+) lines to \S+ in ([\d.]+) s/.exec(paced.stderr) ?? [];
    expect(Number(lines)).toBe(30);
    expect(Number(seconds)).toBeGreaterThanOrEqual(1.2); // 30 lines at 20 a second: the last goes out after ~1.45 s
    await waitUntil(caughtUp, 10_000, 100);
  });

  it('finishes the batch in hand on SIGTERM: nothing is left pending', async () => {
    const lines = Array.from({ length: 400 }, (_, i) => JSON.stringify(freshAd(`live-term-${i}`, `term${i}`)));
    await producer.eval(BOUNDED_ADD_SCRIPT, 1, STREAM, 100_000, STREAM_MAX_BYTES, ...lines);
    // The consumer may be between batches (the batch interval, a maintenance pass): on a loaded 2-core CI machine the
    // read has been seen to start more than 10 s later.
    await waitUntil(async () => (await groupState()).pending > 0, 30_000, 5);
    expect(await app.stop('SIGTERM')).toBe(0);
    expect((await groupState()).pending).toBe(0);
  });
});

/**
 * Two SQLite replicas on one machine, each on its own copy of the store, with the default group names (host and data
 * directory): each applies every sighting, and the stream keeps an entry until both have acknowledged it.
 */
describe('two SQLite replicas, one group each', () => {
  let redis: PrivateRedis;
  let producer: Redis;
  let dataDir: string;
  const replicas: AppProcess[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'query-api-live-replicas-'));
    redis = await startPrivateRedis();
    producer = createRedis({ url: redis.url, name: 'test-producer' });
    const seeded = spawnSync(process.execPath, [CLI, 'seed', '--count', '500'], {
      env: { ...process.env, DATA_DIR: join(dataDir, 'a'), REDIS_URL: redis.url },
      encoding: 'utf8',
    });
    expect(seeded.status).toBe(0);
    cpSync(join(dataDir, 'a'), join(dataDir, 'b'), { recursive: true });
    for (const dir of ['a', 'b']) {
      replicas.push(
        await startApp({ name: 'query-api', env: { DATA_DIR: join(dataDir, dir), REDIS_URL: redis.url, QUERY_WORKERS: '0', LOG_LEVEL: 'warn' }, readyPath: '/readyz' }),
      );
    }
    // A seed and two apps' readiness waits (up to 120 s each on a busy machine) in one hook.
  }, 420_000);

  afterAll(async () => {
    for (const replica of replicas) await replica.stop();
    producer?.disconnect();
    await redis?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const appliedBy = async (replica: AppProcess) => {
    const text = await (await fetch(`${replica.url}/metrics`)).text();
    const row = text.split('\n').find((l) => l.startsWith('adintel_ingest_sightings_total{outcome="added"} '));
    return row ? Number(row.slice(row.lastIndexOf(' ') + 1)) : 0;
  };
  const fresh = (i: number) =>
    JSON.stringify({
      id: `two-${i}`,
      title: 'Two replicas',
      body: 'both apply it',
      landing_url: 'https://two.example.com/',
      platform_name: 'tiktok',
      advertiser: { id: 'adv_two', name: 'Two', account_id: 'tt_two' },
      webmaster: null,
      status_today: 'active',
      first_seen_date: '2026-11-15',
      last_seen_date: '2026-11-15',
      activity_days_amount: 1,
      countries: ['DE'],
      languages: ['de'],
      categories: ['retail'],
      creative: { id: 'cr_two', format: 'text' },
      media: [],
      app: null,
      impressions: 10,
      popularity: 1,
    });

  it('applies every sighting on both, and trims only what both acknowledged', async () => {
    await waitUntil(async () => ((await producer.xinfo('GROUPS', STREAM)) as unknown[]).length === 2, 10_000, 50);
    const [a, b] = replicas as [AppProcess, AppProcess];
    process.kill(b.pid, 'SIGSTOP');
    try {
      for (let i = 0; i < 20; i++) await producer.xadd(STREAM, '*', 'line', fresh(i));
      await waitUntil(async () => (await appliedBy(a)) === 20, 10_000, 50);
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // two trimming passes of replica a
      expect(await producer.xlen(STREAM)).toBe(20); // b has not acknowledged them: kept
    } finally {
      process.kill(b.pid, 'SIGCONT');
    }
    await waitUntil(async () => (await appliedBy(b)) === 20, 15_000, 50);
    await waitUntil(async () => (await producer.xlen(STREAM)) === 0, 10_000, 100);
  });
});
