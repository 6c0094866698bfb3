import { mkdtempSync, rmSync, statSync } from 'node:fs';
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

  it('catches up with a live batch one worker at a time, lookups going to the other meanwhile, then both answer it', async () => {
    const writer = new SqliteWriter(file, DEFAULT_ROLLUP_OPTIONS);
    const base = FIXTURE_RECORDS[0] as (typeof FIXTURE_RECORDS)[number];
    await writer.apply([{ ...base, id: 'ad_caught_up' }]);
    await writer.close();

    const round = store.catchUp();
    // A burst this size would spread over both workers (the test above); while the first catches up, it all goes to the other.
    const lookups = ['US', 'CA', 'GB', 'DE', 'US', 'CA'].map((country) => store.countAds({ country }, EXACT_TOTAL_UP_TO));
    await Promise.all([round, ...lookups]);
    const methodsOf = (i: number) => (posted.mock.calls[i]?.[0] as { method: string }[]).map((r) => r.method);
    expect(methodsOf(0)).toEqual(['catchUp']);
    const lookupWorkers = posted.mock.calls.flatMap((_call, i) => (methodsOf(i).includes('countAds') ? [posted.mock.contexts[i]] : []));
    expect(lookupWorkers).toHaveLength(1);
    expect(lookupWorkers[0]).not.toBe(posted.mock.contexts[0]);
    // Both workers took their turn, then the log was copied (by the first) and both took a new snapshot.
    const rounds = posted.mock.calls.flatMap((_call, i) => methodsOf(i).filter((m) => m === 'catchUp' || m === 'checkpointWal'));
    expect(rounds).toEqual(['catchUp', 'catchUp', 'checkpointWal', 'catchUp', 'catchUp']);

    posted.mockClear();
    const answers = await Promise.all([1, 2, 3, 4].map(() => store.getAd('ad_caught_up')));
    expect(new Set(posted.mock.contexts).size).toBe(2);
    for (const ad of answers) expect(ad?.id).toBe('ad_caught_up');
  });

  it('sends a scan to another worker while the first catches up', async () => {
    const pool = new WorkerPool(WORKER_SCRIPT, file, 2);
    try {
      const round = pool.catchUp(); // the first worker is catching up from here on
      const window = { from: '2026-01-01', to: '2026-01-31' };
      const scan = pool.call('trends', [{ dimension: 'geo', filter: {}, window, previous: { from: '2025-12-01', to: '2025-12-31' }, limit: 10 }]);
      await Promise.all([round, scan]);
      const methodsOf = (i: number) => (posted.mock.calls[i]?.[0] as { method: string }[]).map((r) => r.method);
      const scanCall = posted.mock.calls.findIndex((_call, i) => methodsOf(i).includes('trends'));
      expect(methodsOf(0)).toEqual(['catchUp']);
      expect(scanCall).toBeGreaterThan(0);
      expect(posted.mock.contexts[scanCall]).not.toBe(posted.mock.contexts[0]);
    } finally {
      await pool.close();
    }
  });

  it('keeps the write-ahead log from growing while live batches land on workers holding their snapshots', async () => {
    // A file of its own: the other workers of this suite hold snapshots of theirs.
    const own = join(dir, 'wal.sqlite');
    const writer = new SqliteWriter(own, DEFAULT_ROLLUP_OPTIONS);
    await writer.write(FIXTURE_RECORDS);
    await writer.finish();
    const pool = new WorkerPool(WORKER_SCRIPT, own, 2);
    try {
      const sizes: number[] = [];
      for (let batch = 0; batch < 8; batch++) {
        await writer.apply(FIXTURE_RECORDS.map((ad) => ({ ...ad, id: `${ad.id}_wal_${batch}` })));
        // A lookup and a round as the app makes them: the workers hold a snapshot between the two.
        await pool.call('countAds', [{ country: 'US' }, EXACT_TOTAL_UP_TO]);
        await pool.catchUp();
        sizes.push(statSync(`${own}-wal`).size);
      }
      // Each batch after a round starts the log over: it stays the size of about one batch instead of growing by one
      // batch each time (eight times the first by the end).
      expect(sizes.at(-1)).toBeLessThan(3 * (sizes[0] as number));
      expect(await pool.call('getAd', [`${FIXTURE_RECORDS[0]?.id}_wal_7`])).not.toBeNull();
    } finally {
      await writer.close();
      await pool.close();
    }
  });
});
