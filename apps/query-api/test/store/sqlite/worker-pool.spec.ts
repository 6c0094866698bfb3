import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { EXACT_TOTAL_UP_TO } from '../../../src/ads/ads.service';
import { DEFAULT_ROLLUP_OPTIONS } from '../../../src/store/sqlite/rollups';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';
import { WorkerPool } from '../../../src/store/sqlite/worker-pool';
import { FIXTURE_RECORDS } from '../store-fixture';

/** The test target builds query-api first (project.json), so the bundled worker is there. */
const WORKER_SCRIPT = join(__dirname, '..', '..', '..', '..', '..', 'dist', 'apps', 'query-api', 'sqlite-worker.js');

describe('SQLite worker pool', () => {
  let dir: string;
  let file: string;
  let store: SqliteStore;
  let inline: SqliteStore;
  let posted: jest.SpyInstance;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'query-pool-'));
    file = join(dir, 'ads.sqlite');
    const writer = new SqliteWriter(file, DEFAULT_ROLLUP_OPTIONS);
    await writer.write(FIXTURE_RECORDS);
    await writer.finish();
    await writer.close();
    store = new SqliteStore({ file, workers: 2, workerScript: WORKER_SCRIPT });
    inline = new SqliteStore({ file, workers: 0 });
    await store.ping(); // both workers started and warm
  });

  afterAll(async () => {
    await store?.close();
    await inline?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    posted = jest.spyOn(Worker.prototype, 'postMessage');
  });
  afterEach(() => posted.mockRestore());

  const search = (s: SqliteStore, country: string) =>
    Promise.all([
      s.searchAds({ filter: { country }, sort: 'date', order: 'desc', limit: 20 }),
      s.countAds({ country }, EXACT_TOTAL_UP_TO),
    ]);

  it("sends a search's page and total (one tick) to one worker in one message, with the in-process answers", async () => {
    const answer = await search(store, 'US');
    expect(posted).toHaveBeenCalledTimes(1);
    expect(posted.mock.calls[0]?.[0]).toHaveLength(2);
    expect(answer).toEqual(await search(inline, 'US'));
  });

  it('spreads a burst over the workers: one message per worker, every call answered with its own result', async () => {
    const countries = ['US', 'CA', 'GB', 'DE', 'US', 'CA', 'GB', 'DE'];
    const answers = await Promise.all(countries.map((country) => store.countAds({ country }, EXACT_TOTAL_UP_TO)));
    expect(posted).toHaveBeenCalledTimes(2);
    const sizes = posted.mock.calls.map(([batch]) => (batch as unknown[]).length);
    expect(sizes.reduce((a, b) => a + b)).toBe(countries.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    expect(answers).toEqual(await Promise.all(countries.map((country) => inline.countAds({ country }, EXACT_TOTAL_UP_TO))));
  });

  it('fails only the call that threw, not the other of its batch', async () => {
    const [good, bad] = await Promise.allSettled([
      store.countAds({ country: 'US' }, EXACT_TOTAL_UP_TO),
      store.searchAds({ filter: null as never, sort: 'date', order: 'desc', limit: 20 }),
    ]);
    expect(posted).toHaveBeenCalledTimes(1);
    expect(good).toEqual({ status: 'fulfilled', value: await inline.countAds({ country: 'US' }, EXACT_TOTAL_UP_TO) });
    expect(bad.status).toBe('rejected');
  });

  it('keeps scans on the first worker and sends a lookup made while one runs to another worker', async () => {
    const window = { from: '2026-01-01', to: '2026-01-31' };
    const previous = { from: '2025-12-01', to: '2025-12-31' };
    const scan = store.trends({ dimension: 'geo', filter: {}, window, previous, limit: 10 });
    await Promise.resolve(); // the scan's batch is posted at the end of this tick
    const lookup = store.countAds({ country: 'US' }, EXACT_TOTAL_UP_TO);
    const secondScan = store.breakdown({}, 'country', 5);
    await Promise.all([scan, lookup, secondScan]);
    expect(posted).toHaveBeenCalledTimes(3);
    const [scanWorker, lookupWorker, secondScanWorker] = posted.mock.contexts;
    expect(lookupWorker).not.toBe(scanWorker);
    expect(secondScanWorker).toBe(scanWorker);
    expect(await lookup).toEqual(await inline.countAds({ country: 'US' }, EXACT_TOTAL_UP_TO));
  });

  it('answers a live batch written in this process from both workers at once, with no message to them but the calls', async () => {
    const writer = new SqliteWriter(file, DEFAULT_ROLLUP_OPTIONS);
    const base = FIXTURE_RECORDS[0] as (typeof FIXTURE_RECORDS)[number];
    const before = await inline.countAds({}, EXACT_TOTAL_UP_TO);
    await writer.apply([{ ...base, id: 'ad_published' }]);
    await writer.close();

    // The workers take the columns the writer published (shared-columns.ts): the counts below run on the columns.
    const counts = await Promise.all([1, 2, 3, 4].map(() => store.countAds({}, EXACT_TOTAL_UP_TO)));
    const answers = await Promise.all([1, 2, 3, 4].map(() => store.getAd('ad_published')));
    expect(new Set(posted.mock.contexts).size).toBe(2);
    const methods = posted.mock.calls.flatMap(([batch]) => (batch as { method: string }[]).map((r) => r.method));
    expect(new Set(methods)).toEqual(new Set(['countAds', 'getAd']));
    for (const count of counts) expect(count.total).toBe(before.total + 1);
    for (const ad of answers) expect(ad?.id).toBe('ad_published');
  });

  it('holds no read transaction between reads: with live batches landing, a checkpoint copies the whole write-ahead log', async () => {
    // A file of its own: the other workers of this suite read theirs.
    const own = join(dir, 'wal.sqlite');
    const writer = new SqliteWriter(own, DEFAULT_ROLLUP_OPTIONS);
    await writer.write(FIXTURE_RECORDS);
    await writer.finish();
    const pool = new WorkerPool(WORKER_SCRIPT, own, 2);
    const checkpointer = new DatabaseSync(own);
    try {
      // Both workers past their start-up read (warmUp), which a loaded machine can stretch past the first batch: a
      // burst of calls in one tick reaches both.
      await Promise.all([1, 2, 3, 4].map(() => pool.call('countAds', [{}, EXACT_TOTAL_UP_TO])));
      for (let batch = 0; batch < 8; batch++) {
        await writer.apply(FIXTURE_RECORDS.map((ad) => ({ ...ad, id: `${ad.id}_wal_${batch}` })));
        // Lookups as the app makes them, on both workers.
        await Promise.all([pool.call('countAds', [{ country: 'US' }, EXACT_TOTAL_UP_TO]), pool.call('getAd', [`${FIXTURE_RECORDS[0]?.id}_wal_${batch}`])]);
        // No worker holds a snapshot: every frame of the log can be copied, so the writer's next batch starts it over.
        const { busy, log, checkpointed } = checkpointer.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() as { busy: number; log: number; checkpointed: number };
        expect({ busy, all: log === checkpointed }).toEqual({ busy: 0, all: true });
      }
      expect(await pool.call('getAd', [`${FIXTURE_RECORDS[0]?.id}_wal_7`])).not.toBeNull();
      expect((await pool.call('countAds', [{}, EXACT_TOTAL_UP_TO])).total).toBe(9 * FIXTURE_RECORDS.length);
    } finally {
      checkpointer.close();
      await writer.close();
      await pool.close();
    }
  });
});
