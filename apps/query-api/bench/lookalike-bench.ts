/**
 * Benchmark (not a test): `similar_to` on search_creatives, search_ads and search_webmasters, in-process on SQLite
 * stores of the demo data at each size (default 100,000 and 1,000,000 ads, in one run so the ratio means something),
 * through the services the tools call. Goal (issue 25): p95 at most 50 ms at 1,000,000 ads.
 *
 * SYNTHETIC HASHES: rendering the ~450,000 demo pictures of a 1M-ad store takes hours here (about 24 ms of CPU each,
 * docs/media.md), so this bench does not render them. Its stores are ingested from the demo generator like the seed,
 * except that each demo picture gets a stored media entry without a file whose perceptual hash is drawn, not computed:
 * a family's root design gets 256 random bits (a hash of its root id; unrelated pictures are then ~128 bits apart,
 * where real unrelated designs are 76 or more), a recut flips 10 to 49 of them (real recuts move up to about 50),
 * a carousel's later card a few more. The families are the demo generator's own, so the look-alike answers have the
 * seed's shape; what is not measured is how clustered real designs are (more near candidates per query would mean
 * more rows read). The entries are written exactly where the seed writes a stored picture (`media[n].stored`).
 *
 * Stores are built once under tmp/lookalike-bench/<ads>/ and reused by later runs (delete the folder to rebuild).
 * Run: npx nx run query-api:lookalike-bench [-- --ads=100000,1000000 --runs=200 --limit=20]
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SimilarAdsService } from '../src/ads/similar-ads.service';
import { CreativesService } from '../src/creatives/creatives.service';
import { writeDemoNdjson } from '../src/ingest/demo-generator';
import { ingestFile } from '../src/ingest/ingest';
import { DEMO_SCHEME, parseDemoMediaUrl } from '../src/media/demo-creative';
import { FilesystemMediaStore } from '../src/media/filesystem-media-store';
import { LookalikeIndex, NO_MADE_HASHES } from '../src/media/lookalike-index.service';
import { PictureCatalogue } from '../src/media/picture-catalogue';
import { HASH_BITS } from '../src/media/perceptual-hash';
import type { RecordMedia, StoredMedia } from '../src/media/stored-media';
import { CursorCodec } from '../src/paging/cursor-codec';
import { DataWindowService } from '../src/paging/data-window.service';
import { ListPager } from '../src/paging/list-pager';
import type { AdRecord, AdStore } from '../src/store/ad-store.port';
import { SqliteStore } from '../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../src/store/sqlite/sqlite-writer';
import { WebmastersService } from '../src/webmasters/webmasters.service';

const out = (s: string) => process.stdout.write(`${s}\n`);
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

/** A deterministic stream of bytes from a string (SHA-256 in counter mode). */
function bytesOf(seed: string, n: number): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; parts.length * 32 < n; i++) parts.push(createHash('sha256').update(`${seed}#${i}`).digest());
  return Buffer.concat(parts).subarray(0, n);
}

/** The drawn hash of a demo picture (see the header): its root's random bits, some flipped for a recut or a card. */
function syntheticHash(url: string): string | null {
  const spec = parseDemoMediaUrl(url);
  if (!spec) return null;
  const bits = bytesOf(`root:${spec.root}`, HASH_BITS / 8);
  const noise = bytesOf(url, 64);
  const flips = (spec.recut ? 10 + ((noise[0] as number) % 40) : 0) + (spec.card ? 3 + spec.card : 0);
  const flipped = new Set<number>();
  for (let i = 1; flipped.size < flips; i++) {
    const position = ((noise[i % 64] as number) * 7 + i * 31) % HASH_BITS;
    if (flipped.has(position)) continue;
    flipped.add(position);
    bits[position >> 3] = (bits[position >> 3] as number) ^ (1 << (position & 7));
  }
  return bits.toString('hex');
}

/** Stands in for MediaIngest: every demo picture gets a stored entry (no file) with its drawn hash. */
const syntheticMedia = {
  resolve(records: readonly AdRecord[]): Promise<{ records: AdRecord[]; rejected: [] }> {
    const withMedia = records.map((record) => ({
      ...record,
      media: record.media.map((entry): RecordMedia => {
        const phash = entry.url.startsWith(DEMO_SCHEME) ? syntheticHash(entry.url) : null;
        if (!phash) return entry;
        const key = `${createHash('sha256').update(entry.url).digest('hex')}.webp`;
        const stored: StoredMedia = {
          type: entry.type,
          key,
          mime: 'image/webp',
          bytes: 20_000,
          width: entry.width,
          height: entry.height,
          duration_seconds: entry.type === 'video' ? entry.duration_seconds : null,
          thumbnail_key: key,
          poster_key: entry.type === 'video' ? key : null,
          phash,
        };
        return { ...entry, stored };
      }),
    }));
    return Promise.resolve({ records: withMedia, rejected: [] });
  },
};

async function buildStore(dir: string, ads: number): Promise<string> {
  const file = join(dir, 'ads.sqlite');
  const done = join(dir, 'done');
  if (existsSync(done)) return file;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const ndjson = join(dir, 'ads.ndjson');
  out(`# ${ads} ads: generating and ingesting with drawn picture hashes (load ${load()})...`);
  await writeDemoNdjson(ndjson, ads);
  const writer = new SqliteWriter(file);
  const summary = await ingestFile(ndjson, writer, { progress: false, media: syntheticMedia });
  await writer.close();
  rmSync(ndjson);
  writeFileSync(done, `${summary.written}\n`);
  out(`# ${ads} ads: ingested ${summary.written} in ${summary.seconds.toFixed(0)} s`);
  return file;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

interface Timing {
  p50: number;
  p95: number;
  cpu50: number;
  cpu95: number;
  rows: number;
}

async function measure(ids: string[], runs: number, run: (id: string) => Promise<number>): Promise<Timing> {
  for (let i = 0; i < 3; i++) await run(ids[i % ids.length] as string); // warm-up
  const times: number[] = [];
  const cpu: number[] = [];
  let rows = 0;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    rows += await run(ids[i % ids.length] as string);
    const used = process.cpuUsage(cpuStarted);
    times.push(performance.now() - started);
    cpu.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), cpu50: percentile(cpu, 50), cpu95: percentile(cpu, 95), rows: rows / runs };
}

/** `count` items spread evenly over the list (a fixed sample, so both sizes are queried alike). */
const spread = <T>(items: readonly T[], count: number): T[] =>
  Array.from({ length: Math.min(count, items.length) }, (_, i) => items[Math.floor((i * items.length) / Math.min(count, items.length))] as T);

async function benchStore(store: AdStore, runs: number, limit: number) {
  const pager = new ListPager(new CursorCodec('b'.repeat(32)), new DataWindowService(store));
  const index = new LookalikeIndex(store, NO_MADE_HASHES);
  // No entry is pending here (the hashes are drawn into the records), so the catalogue is never read.
  const pictures = new PictureCatalogue(new FilesystemMediaStore(join(tmpdir(), 'lookalike-bench-media')));
  const creatives = new CreativesService(store, pager, { PUBLIC_BASE_URL: 'http://bench.test' }, index, pictures);
  const similarAds = new SimilarAdsService(store, pager, creatives);
  const webmasters = new WebmastersService(store, pager);

  let started = performance.now();
  const built = await index.index();
  const indexMs = performance.now() - started;
  const hashes = await store.creativePictureHashes(); // the sample of query ids, read again outside the timing
  const creativeIds = spread(hashes.map((h) => h.id), runs);
  const adIds: string[] = [];
  for (const id of creativeIds) {
    const first = await store.searchAds({ filter: { creativeId: id }, sort: 'date', order: 'desc', limit: 1 });
    if (first.rows[0]) adIds.push(first.rows[0].id);
  }
  const webmasterIds: string[] = [];
  let after;
  do {
    const page = await store.searchWebmasters({ limit: 500, ...(after ? { after } : {}) });
    webmasterIds.push(...page.rows.map((r) => r.id));
    after = page.hasMore ? (page.lastKey ?? undefined) : undefined;
  } while (after);
  started = performance.now();
  await webmasters.search({ similar_to: webmasterIds[0] as string, limit }); // loads the profiles
  const profilesMs = performance.now() - started;

  const phashOf = new Map(hashes.map((h) => [h.id, h.phash]));
  const cases: [string, string[], (id: string) => Promise<number>][] = [
    ['hash scan only (LookalikeIndex.near)', creativeIds, (id) => Promise.resolve(built.near(phashOf.get(id) as string).length - 1)],
    ['search_creatives(similar_to)', creativeIds, async (id) => (await creatives.search({ similar_to: id, limit })).data.length],
    ['search_ads(similar_to)', adIds, async (id) => (await similarAds.search({ similar_to: id, limit, sort_by: 'date', sort_order: 'desc' })).data.length],
    ['search_webmasters(similar_to)', spread(webmasterIds, runs), async (id) => (await webmasters.search({ similar_to: id, limit })).data.length],
  ];
  // The profile behind the batch read: the rows of a look-alike ranking's candidates (MAX_LOOKALIKES = 200 at most),
  // read one getCreative at a time as search_creatives did before, and in one creativeRows call as it does now.
  // Candidates spread over the whole store, a different set per query.
  const step = Math.floor(hashes.length / 200);
  const windowOf = new Map(creativeIds.map((id, i) => [id, Array.from({ length: 200 }, (_, j) => (hashes[(i * 7 + j * step) % hashes.length] as { id: string }).id)]));
  const rowCases: [string, string[], (id: string) => Promise<number>][] = [
    [
      'rows of 200 candidates, getCreative each (before)',
      creativeIds,
      async (id) => {
        let n = 0;
        for (const candidate of windowOf.get(id) ?? []) if (await store.getCreative(candidate)) n++;
        return n;
      },
    ],
    ['rows of 200 candidates, one creativeRows (now)', creativeIds, async (id) => (await store.creativeRows(windowOf.get(id) ?? [])).length],
  ];
  const results = new Map<string, Timing>();
  for (const [name, ids, run] of cases) results.set(name, await measure(ids, runs, run));
  for (const [name, ids, run] of rowCases) results.set(name, await measure(ids, Math.max(10, Math.round(runs / 10)), run));
  return { pictures: built.size, webmasters: webmasterIds.length, indexMs, profilesMs, results };
}

async function main() {
  const { values } = parseArgs({
    options: {
      ads: { type: 'string', default: '100000,1000000' },
      runs: { type: 'string', default: '200' },
      limit: { type: 'string', default: '20' },
    },
  });
  const sizes = values.ads.split(',').map(Number);
  const runs = Number(values.runs);
  const limit = Number(values.limit);
  const root = join(process.cwd(), 'tmp', 'lookalike-bench');
  const files = [];
  for (const ads of sizes) files.push(await buildStore(join(root, String(ads)), ads));
  out(`# measuring: ${runs} queries per case, limit ${limit}, SQLite in-process; load average ${load()}`);
  const all = [];
  for (const [i, file] of files.entries()) {
    const store = new SqliteStore({ file, workers: 0 });
    const r = await benchStore(store, runs, limit);
    await store.close();
    out(`# ${sizes[i]} ads: ${r.pictures} creatives with a picture, index built in ${r.indexMs.toFixed(0)} ms; ${r.webmasters} webmasters, profiles loaded in ${r.profilesMs.toFixed(0)} ms; load average ${load()}`);
    all.push(r);
  }
  const [small, large] = all;
  const fmt = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(n < 10 ? 2 : 1));
  out('');
  // Wall clock includes waiting for a core (this machine is shared); the CPU time of a call does not.
  out(`| case | ads | wall p50 | wall p95 | CPU p50 | CPU p95 | rows/query |`);
  out('|---|---:|---:|---:|---:|---:|---:|');
  for (const name of small?.results.keys() ?? []) {
    for (const [i, r] of all.entries()) {
      const t = r.results.get(name);
      if (t) out(`| ${name} | ${sizes[i]} | ${fmt(t.p50)} | ${fmt(t.p95)} | ${fmt(t.cpu50)} | ${fmt(t.cpu95)} | ${fmt(t.rows)} |`);
    }
  }
  if (small && large) {
    out('');
    out(`CPU p50 ratio ${sizes[1]} / ${sizes[0]}: ${[...small.results].map(([name, a]) => `${name} ${((large.results.get(name)?.cpu50 ?? 0) / Math.max(a.cpu50, 0.01)).toFixed(1)}x`).join('; ')}`);
  }
  out(`load average at the end: ${load()}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`lookalike bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
