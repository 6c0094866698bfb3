/**
 * Pictures off the ingest path (docs/media.md): an ingest applies a picture `pending` and queues it; a picture worker
 * makes it, records it in the picture catalogue and announces its look-alike hash; the reads resolve it. On a real
 * Redis (a private redis-server), a real media store on disk and a real local HTTP server for the fetches (a
 * fetcher built with the test-only `allowLoopback`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PublicFetcher } from '@adintel/public-fetch';
import { startPrivateRedis, type PrivateRedis } from '@adintel/testing';
import { FilesystemMediaStore } from '../../src/media/filesystem-media-store';
import { MediaIngest, PictureBacklog } from '../../src/media/media-ingest';
import { MediaLibrary } from '../../src/media/media-library';
import { PictureCatalogue } from '../../src/media/picture-catalogue';
import { PictureMaker } from '../../src/media/picture-maker';
import { PictureQueue } from '../../src/media/picture-queue';
import { DEFAULT_WORKER_OPTIONS, PictureWorker, type PictureWorkerOptions } from '../../src/media/picture-worker';
import type { RecordMedia } from '../../src/media/stored-media';
import type { AdRecord } from '../../src/store/ad-store.port';
import { FIXTURE_RECORDS } from '../store/store-fixture';

const DEMO = 'demo:cr_pw/0?brand=Worker+Co&headline=Made+later&cta=Shop+now&category=ecommerce_and_retail&shape=square';

describe('picture workers (real Redis, real media store, real HTTP server)', () => {
  let redis: PrivateRedis;
  let server: Server;
  let base: string;
  let dir: string;
  let files: FilesystemMediaStore;
  let queue: PictureQueue;
  let fetcher: PublicFetcher;
  const hits: string[] = [];
  const logs: Record<string, unknown>[] = [];
  let stream = 0;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(503).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'query-picture-worker-'));
    files = new FilesystemMediaStore(join(dir, 'media'));
    fetcher = new PublicFetcher({ timeoutMs: 2_000, maxBytes: 1_000_000, allowLoopback: true });
  });
  afterAll(async () => {
    await fetcher.close();
    await new Promise((done) => server.close(done));
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    // Each case on streams of its own.
    queue = PictureQueue.connect(redis.url, `ingest:test${++stream}`);
    hits.length = 0;
    logs.length = 0;
  });
  afterEach(() => queue.close());

  const ad = (id: string, creative: string, url: string): AdRecord => ({
    ...(FIXTURE_RECORDS[0] as AdRecord),
    id,
    creative_id: creative,
    media: [{ type: 'image', url, width: 360, height: 360, duration_seconds: null }],
    media_count: 1,
  });
  const workerWith = (options: Partial<PictureWorkerOptions> = {}, consumer = 'w1') =>
    new PictureWorker(queue, new PictureCatalogue(files), new PictureMaker(new MediaLibrary(files), null, fetcher), (line) => logs.push(line), {
      ...DEFAULT_WORKER_OPTIONS,
      blockMs: 50,
      consumer,
      ...options,
    });
  /** Reads and handles what is queued now, as the worker's loop does once. */
  const drain = async (worker: PictureWorker, consumer = 'w1') => {
    await queue.ensureGroup();
    const outcomes = [];
    for (;;) {
      const jobs = await queue.read(consumer, 10, 50);
      if (!jobs.length) return outcomes;
      for (const job of jobs) outcomes.push(await worker.handle(job));
    }
  };

  it('an ingest applies the picture pending and queues one job per source; a worker makes it once; the reads resolve it', async () => {
    const later = new PictureBacklog(false);
    const ingest = new MediaIngest(new MediaLibrary(files), null, undefined, null, later);
    const { records, rejected } = await ingest.resolve([ad('a1', 'cr_pw', DEMO), ad('a2', 'cr_pw', DEMO), ad('a3', 'cr_text', `${base}/x.png`)]);
    expect(rejected).toEqual([]);
    // Nothing rendered at ingest: the demo entries are pending, the http(s) one (fetching off) kept without a file.
    expect(records.map((r) => r.media[0])).toEqual([
      { type: 'image', url: DEMO, width: 360, height: 360, duration_seconds: null, pending: true },
      { type: 'image', url: DEMO, width: 360, height: 360, duration_seconds: null, pending: true },
      { type: 'image', url: `${base}/x.png`, width: 360, height: 360, duration_seconds: null },
    ]);
    const jobs = later.take();
    expect(jobs).toEqual([{ source: { type: 'image', url: DEMO, width: 360, height: 360, duration_seconds: null }, creatives: ['cr_pw'] }]);
    // Queued twice (two replicas' live doors, or a re-delivered batch): made once.
    await queue.enqueue([...jobs, ...jobs]);
    const catalogue = new PictureCatalogue(files);
    expect((await catalogue.resolve(records[0]?.media ?? []))[0]).toMatchObject({ pending: true });
    expect(await drain(workerWith())).toEqual(['made', 'known']);
    const [shown] = await catalogue.resolve(records[0]?.media ?? []);
    expect(shown?.pending).toBeUndefined();
    expect(shown?.stored).toMatchObject({ type: 'image', mime: 'image/webp', width: 360, height: 360 });
    expect(await files.stat(shown?.stored?.thumbnail_key ?? '')).not.toBeNull();
    // The look-alike hash is announced for the creative, once per job (the index keeps the last per creative).
    const { hashes } = await queue.announced('0-0', 10);
    expect(hashes).toEqual([
      { id: 'cr_pw', phash: shown?.stored?.phash },
      { id: 'cr_pw', phash: shown?.stored?.phash },
    ]);
    expect(await queue.backlog()).toEqual({ queued: 0, retrying: 0 });
  }, 60_000);

  it('a failed fetch is tried again after a backoff, not at every batch, and refused for good after the last attempt', async () => {
    const entry: RecordMedia = { type: 'image', url: `${base}/down.png`, width: 10, height: 10, duration_seconds: null };
    const job = { source: entry, creatives: ['cr_down'] };
    const worker = workerWith({ maxAttempts: 3, firstBackoffMs: 10_000 });
    await queue.enqueue([job]);
    expect(await drain(worker)).toEqual(['retrying']);
    expect(hits).toEqual(['/down.png']);
    // Later batches queue the same URL again: no fetch while its retry waits.
    await queue.enqueue([job, job]);
    expect(await drain(worker)).toEqual(['known', 'known']);
    expect(hits).toHaveLength(1);
    const catalogue = new PictureCatalogue(files);
    expect(await catalogue.get(entry)).toMatchObject({ state: 'retrying', attempts: 1, reason: expect.stringContaining('answered 503') });
    expect((await catalogue.resolve([{ ...entry, pending: true }]))[0]).toMatchObject({ pending: true });
    // Not due yet: nothing moves. Then each retry once it is due (after 10 s, then 40 s: promoted as if then).
    expect(await queue.promoteDue(Date.now())).toBe(0);
    expect(await queue.promoteDue(Date.now() + 11_000)).toBe(1);
    expect(await drain(worker)).toEqual(['retrying']);
    expect(await queue.promoteDue(Date.now() + 20_000)).toBe(0);
    expect(await queue.promoteDue(Date.now() + 41_000)).toBe(1);
    expect(await drain(worker)).toEqual(['failed']);
    expect(hits).toHaveLength(3);
    expect(await catalogue.get(entry)).toMatchObject({ state: 'failed', attempts: 3 });
    expect((await catalogue.resolve([{ ...entry, pending: true }]))[0]).toMatchObject({ failed: expect.stringContaining('answered 503') });
    expect(await queue.backlog()).toEqual({ queued: 0, retrying: 0 });
  }, 30_000);

  it('a job whose worker died is taken over by another, and refused for good once it has stopped workers three times', async () => {
    const entry: RecordMedia = { type: 'image', url: DEMO.replace('cr_pw', 'cr_crash'), width: 360, height: 360, duration_seconds: null };
    await queue.enqueue([{ source: entry, creatives: ['cr_crash'] }]);
    await queue.ensureGroup();
    // Three workers take it and die before finishing it (as a decoder killed for its memory would).
    for (const dead of ['dead1', 'dead2']) {
      const taken = dead === 'dead1' ? await queue.read(dead, 1, 50) : await queue.claimStale(dead, 0, 1);
      expect(taken).toHaveLength(1);
    }
    const third = await queue.claimStale('dead3', 0, 1);
    expect(third[0]?.deliveries).toBe(3);
    // The next worker's loop finds it stale with three deliveries: refused, with why, and off the queue.
    const worker = workerWith({ claimIdleMs: 0 }, 'w2');
    const stop = new AbortController();
    const running = worker.run(stop.signal);
    const deadline = Date.now() + 5_000;
    while (worker.done.failed === 0 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 20));
    stop.abort();
    await running;
    expect(await new PictureCatalogue(files).get(entry)).toMatchObject({ state: 'failed', reason: expect.stringContaining('stopped 4 times') });
    expect(await queue.backlog()).toEqual({ queued: 0, retrying: 0 });
  }, 30_000);
});
