import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { AdRecord } from '../../../src/store/ad-store.port';
import { SqliteLiveWriter } from '../../../src/store/sqlite/sqlite-live-writer';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';
import { EVERY_WORD, offlineLoad } from './offline-load';
import { describeStoreContract } from '../store.contract';
import { FIXTURE_RECORDS } from '../store-fixture';
import { firstDifference, liveSightings } from '../live-sightings';
import { type AdLine, toAdRecord } from '../../../src/ingest/ad-line';
import { generateDemoAds } from '../../../src/ingest/demo-generator';
import { dayNumber } from '../../../src/store/text';

const WORKER_SCRIPT = join(__dirname, '..', '..', '..', '..', '..', 'dist', 'apps', 'query-api', 'sqlite-worker.js');

/**
 * A store loaded with `first`, then fed `batches` live; readers may be open (and reading) while it is fed. The columns
 * are stored again every `checkpointEvery` changes.
 */
async function live(file: string, first: AdRecord[], batches: AdRecord[][], between?: () => Promise<void>, checkpointEvery?: number) {
  const writer = new SqliteWriter(file, EVERY_WORD, checkpointEvery);
  await writer.write(first);
  await writer.finish();
  const totals = { added: 0, replaced: 0, unchanged: 0, rejected: 0, tailForwards: 0 };
  for (const batch of batches) {
    const result = await writer.apply(batch);
    totals.added += result.added;
    totals.replaced += result.replaced;
    totals.unchanged += result.unchanged;
    totals.rejected += result.rejected.length;
    await between?.();
  }
  totals.tailForwards = writer.tailForwards;
  await writer.close();
  return totals;
}

describe('live batches give the answers of one offline load', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'query-live-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('applies new ads and re-sightings in many batches, with readers reading between them, and ends identical', async () => {
    const { firstLoad, batches, finalRecords } = liveSightings(3_000);
    const expected = new SqliteStore({ file: await offlineLoad(join(dir, 'offline.sqlite'), finalRecords), workers: 0 });
    const file = join(dir, 'live.sqlite');
    // A reader that takes the columns the writer publishes with every batch (shared-columns.ts), one that derives
    // them itself batch by batch across the writer's checkpoints (as a reader with no writer in its process does),
    // one that starts halfway (it loads a checkpoint, replays what follows, then takes the next publication), and one
    // that only reads at the end (after the writer closed: everything stored, nothing to replay).
    const following = { store: null as SqliteStore | null };
    const deriving = { store: null as SqliteStore | null };
    const halfway = { store: null as SqliteStore | null, batches: 0 };
    const totals = await live(
      file,
      firstLoad,
      batches,
      async () => {
        if (++halfway.batches === Math.floor(batches.length / 2)) halfway.store = new SqliteStore({ file, workers: 0 });
        following.store ??= new SqliteStore({ file, workers: 0 });
        deriving.store ??= new SqliteStore({ file, workers: 0, tuning: { follow: false } });
        for (const store of [following.store, deriving.store, halfway.store]) {
          await store?.searchAds({ filter: { country: 'US' }, sort: 'date', order: 'desc', limit: 5 });
          await store?.trends({
            dimension: 'geo',
            filter: {},
            window: { from: '2026-01-01', to: '2026-12-31' },
            previous: { from: '2025-01-01', to: '2025-12-31' },
            limit: 5,
          });
        }
      },
      1_000,
    );
    expect(totals.added).toBe(3_000 - firstLoad.length);
    expect(totals.unchanged).toBe(20);
    // New ads here are first seen on many days, re-sightings add countries: the columns merge, batch by batch.
    expect(totals.tailForwards).toBeLessThan(batches.length / 2);
    expect(totals.rejected).toBe(0);
    const late = new SqliteStore({ file, workers: 0 });
    try {
      expect(await firstDifference(expected, following.store as SqliteStore, finalRecords)).toBeNull();
      expect(await firstDifference(expected, deriving.store as SqliteStore, finalRecords)).toBeNull();
      expect(await firstDifference(expected, late, finalRecords)).toBeNull();
      expect(await firstDifference(expected, halfway.store as SqliteStore, finalRecords)).toBeNull();
    } finally {
      await Promise.all([expected.close(), late.close(), following.store?.close(), deriving.store?.close(), halfway.store?.close()]);
    }
  }, 120_000);

  it('appends new ads of the newest day after every stored ad (a tail, no merge) and ends identical', async () => {
    const { firstLoad, batches, finalRecords } = tailSightings(3_000);
    const expected = new SqliteStore({ file: await offlineLoad(join(dir, 'offline.sqlite'), finalRecords), workers: 0 });
    const file = join(dir, 'tail.sqlite');
    const following = { store: null as SqliteStore | null };
    const deriving = { store: null as SqliteStore | null };
    const totals = await live(
      file,
      firstLoad,
      batches,
      async () => {
        following.store ??= new SqliteStore({ file, workers: 0 });
        deriving.store ??= new SqliteStore({ file, workers: 0, tuning: { follow: false } });
        for (const store of [following.store, deriving.store]) {
          // Reads that build the indexes, so later batches splice the tail into them.
          await store.searchAds({ filter: { country: 'US' }, sort: 'date', order: 'desc', limit: 5 });
          await store.countAds({ country: 'US', categories: ['gaming'] }, 1);
          await store.countAds({ dateFrom: '2026-01-01' }, 1);
        }
      },
      1_000,
    );
    expect(totals.added).toBe(3_000 - firstLoad.length);
    expect(totals.tailForwards).toBeGreaterThan(batches.length / 2);
    const late = new SqliteStore({ file, workers: 0 });
    try {
      expect(await firstDifference(expected, following.store as SqliteStore, finalRecords)).toBeNull();
      expect(await firstDifference(expected, deriving.store as SqliteStore, finalRecords)).toBeNull();
      expect(await firstDifference(expected, late, finalRecords)).toBeNull();
    } finally {
      await Promise.all([expected.close(), late.close(), following.store?.close(), deriving.store?.close()]);
    }
  }, 120_000);
});

/**
 * The live door's usual shape (the live-apply benchmark's): new ads first seen on the data's newest day, with ids after
 * every stored one and landing pages on hosts the store knows; re-sightings that move only dates, status, activity and
 * impressions. The first 60 % of the demo ads (in id order) are loaded first.
 */
function tailSightings(count: number, batchSize = 150): { firstLoad: AdRecord[]; batches: AdRecord[][]; finalRecords: AdRecord[] } {
  const lines = [...generateDemoAds(count, 4242)].sort((a, b) => (a.id < b.id ? -1 : 1));
  const firstLoad = lines.slice(0, Math.floor(count * 0.6));
  const day = firstLoad.reduce((max, line) => (line.last_seen_date > max ? line.last_seen_date : max), '');
  const latest = new Map(firstLoad.map((line) => [line.id, line]));
  const known = firstLoad.map((line) => line.id);
  const stream: AdLine[] = [];
  lines.slice(firstLoad.length).forEach((line, i) => {
    const host = firstLoad[(i * 7919) % firstLoad.length] as AdLine;
    const fresh = { ...line, first_seen_date: day, last_seen_date: day, activity_days_amount: 1, landing_url: host.landing_url };
    stream.push(fresh);
    latest.set(fresh.id, fresh);
    for (let k = 1; k <= 2; k++) {
      const id = known[(i * 104_729 + k * 31) % known.length] as string;
      const was = latest.get(id) as AdLine;
      const span = dayNumber(day) - dayNumber(was.first_seen_date) + 1;
      const seen = { ...was, last_seen_date: day, status_today: 'active' as const, activity_days_amount: Math.min(span, was.activity_days_amount + 1), impressions: was.impressions + 1 + k };
      stream.push(seen);
      latest.set(id, seen);
    }
  });
  const batches: AdRecord[][] = [];
  for (let i = 0; i < stream.length; i += batchSize) batches.push(stream.slice(i, i + batchSize).map(toAdRecord));
  return { firstLoad: firstLoad.map(toAdRecord), batches, finalRecords: [...latest.values()].map(toAdRecord) };
}

/** The fixture built live: a few ads loaded, the rest applied in small batches, some seen in another state and back. */
const loadLive = (workers: number) => async (records: AdRecord[]) => {
  const dir = mkdtempSync(join(tmpdir(), 'query-live-contract-'));
  const file = join(dir, 'ads.sqlite');
  const store = new SqliteStore({ file, workers, ...(workers ? { workerScript: WORKER_SCRIPT } : {}) });
  const changed = records.slice(0, 4).map((ad) => ({ ...ad, status_today: ad.status_today === 'active' ? ('inactive' as const) : ('active' as const), countries: ['ZZ'] }));
  const batches: AdRecord[][] = [changed];
  for (let i = 3; i < records.length; i += 2) batches.push(records.slice(i, i + 2));
  batches.push(records.slice(0, 4));
  // Reading between the batches, as the app does: the readers take the columns each batch publishes.
  await live(file, records.slice(0, 3), batches, async () => {
    await store.ping();
    await store.countAds({}, 1);
  });
  return {
    store,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

describeStoreContract('sqlite, built by live batches', loadLive(0));
describeStoreContract('sqlite, built by live batches, worker threads', loadLive(2));

it('the fixture has more ads than the live contract loads first', () => expect(FIXTURE_RECORDS.length).toBeGreaterThan(7));

describe("the serving process's live writer (its own thread)", () => {
  const WRITER_SCRIPT = join(__dirname, '..', '..', '..', '..', '..', 'dist', 'apps', 'query-api', 'sqlite-writer-worker.js');

  it('applies batches in order while worker threads read, and stores the columns when closed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'query-live-writer-'));
    const file = join(dir, 'ads.sqlite');
    const store = new SqliteStore({ file, workers: 2, workerScript: WORKER_SCRIPT });
    const writer = new SqliteLiveWriter(file, { script: WRITER_SCRIPT });
    try {
      const [first, ...rest] = FIXTURE_RECORDS;
      // The first batch into a store never finished is loaded in full; later ones are live batches.
      expect(await writer.apply([first as AdRecord])).toEqual({ added: 1, replaced: 0, unchanged: 0, rejected: [] });
      const results = await Promise.all([writer.apply(rest), writer.apply([{ ...(first as AdRecord), status_today: 'inactive' }])]);
      expect(results.map(({ added, replaced, unchanged }) => ({ added, replaced, unchanged }))).toEqual([
        { added: rest.length, replaced: 0, unchanged: 0 },
        { added: 0, replaced: 1, unchanged: 0 },
      ]);
      // The query workers answer from the columns the writer thread published with the batch (shared-columns.ts).
      expect((await store.countAds({}, 1_000)).total).toBe(FIXTURE_RECORDS.length);
      expect((await store.getAd((first as AdRecord).id))?.status_today).toBe('inactive');
      await writer.close();
      const db = new DatabaseSync(file, { readOnly: true });
      expect(db.prepare('SELECT count(*) AS n FROM live_changes').get()).toEqual({ n: 0 });
      db.close();
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

it('a live sighting keeps the stored file of a media URL the store already holds, and its re-delivery changes nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'query-live-media-'));
  const file = join(dir, 'ads.sqlite');
  const stored = { type: 'image' as const, key: 'ab.png', mime: 'image/png' as const, bytes: 10, width: 1, height: 1, duration_seconds: null, thumbnail_key: 'ab.webp', poster_key: null, phash: '00' };
  const [first] = FIXTURE_RECORDS as [AdRecord];
  const url = 'https://cdn.example.com/a.png';
  const loaded: AdRecord = { ...first, media: [{ type: 'image', url, width: 1, height: 1, duration_seconds: null, stored }], media_count: 1 };
  const writer = new SqliteWriter(file);
  const store = new SqliteStore({ file, workers: 0 });
  try {
    await writer.write([loaded]);
    await writer.finish();
    // The live line carries its media as published: no stored file.
    const sighting: AdRecord = { ...loaded, status_today: 'inactive', media: [{ type: 'image', url, width: 1, height: 1, duration_seconds: null }] };
    expect((await writer.apply([sighting])).replaced).toBe(1);
    expect((await store.getAd(first.id))?.media).toEqual([{ type: 'image', url, width: 1, height: 1, duration_seconds: null, stored }]);
    expect(await writer.apply([sighting])).toMatchObject({ unchanged: 1, replaced: 0 });
  } finally {
    await writer.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
