/**
 * Benchmark (not a test): the change feed (search_ads `changed_since`, issue 36) against a plain search_ads with the
 * same filters, side by side in one run, on a copy of a seeded store.
 *
 * It takes a watermark, applies a day's worth of changes through the service's live writer (SqliteLiveWriter: the
 * writer thread, SqliteWriter.apply, the change log in the same transaction), then times, interleaved, the feed call
 * and the plain call through AdsService (what the tool runs: the page and its total) for several filter shapes:
 * an advertiser, an affiliate (webmaster), a landing domain, a niche keyword (q), a country, and no filter. Per call:
 * CPU time of the process (in-process store, one thread: process.cpuUsage), wall time, and for the feed the log rows
 * and ads it examined (change-log.ts feedReadStats); p50/p95 and the ratio feed/plain per shape.
 * Goal (issue 36): a feed call at 1M ads with a day's worth of changes behind the watermark <= 2x the plain call.
 *
 * "A day's worth": the contract adds about 280 million new ads a month (service-contract.md, 1), so a day brings a
 * thirtieth of a month's intake. At the store's scale we take the store as one month's intake: new ads = size / 30
 * (33,333 at 1M; the demo data's own newest day holds fewer). Around them, the day's other sightings: the ads active on
 * the data's day are seen again the next day, except --ending of them that are not (they end when the day moves past
 * them) and a few seen inactive (ended by a sighting); --changing of the re-sightings add a country (changed), the rest
 * move only counters and dates (no visible change); and a few old inactive ads come back (resumed).
 *
 * Run: npx nx run query-api:feed-bench -- --store=/path/to/DATA_DIR [--runs=30 --batch=2000 --work=/tmp/x --keep]
 * (the DATA_DIR holds ads.sqlite and the seed's demo-ads-N.ndjson; it is copied, never changed).
 */
import { copyFileSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { searchAdsArgs, type AdsPage } from '@adintel/contracts';
import { AdChangesService } from '../src/ads/ad-changes.service';
import { AdsService } from '../src/ads/ads.service';
import type { SimilarAdsService } from '../src/ads/similar-ads.service';
import { toAdRecord, type AdLine } from '../src/ingest/ad-line';
import type { PictureCatalogue } from '../src/media/picture-catalogue';
import { CursorCodec } from '../src/paging/cursor-codec';
import { DataWindowService } from '../src/paging/data-window.service';
import { ListPager } from '../src/paging/list-pager';
import type { AdRecord } from '../src/store/ad-store.port';
import { FeedIndex, LOAD_ROWS } from '../src/store/sqlite/change-feed-index';
import { feedReadStats } from '../src/store/sqlite/change-feed-reader';
import { SqliteLiveWriter } from '../src/store/sqlite/sqlite-live-writer';
import { SqliteStore } from '../src/store/sqlite/sqlite-store';
import { addDays } from '../src/store/text';

const out = (s: string) => process.stdout.write(`${s}\n`);
const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
const threadUs = () => {
  const { user, system } = process.threadCpuUsage();
  return user + system;
};
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? 0;

/** A seeded generator (mulberry32), so a run's day is the same every time. */
function seeded(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Day {
  sightings: AdRecord[];
  /** What the day is made of, for the output. */
  mix: Record<string, number>;
  day: string;
}

/**
 * The next day's sightings for the store loaded from `ndjson`: read once, keeping the ads active on its newest day and
 * a sample of the others (templates of new ads, old ads that resume).
 */
async function dayOfChanges(ndjson: string, size: number, options: { ending: number; changing: number }, random: () => number): Promise<Day> {
  const active: AdLine[] = [];
  const sample: AdLine[] = [];
  const sampleSize = 5_000;
  let newest = '';
  let seen = 0;
  const lines: string[] = [];
  for await (const text of createInterface({ input: createReadStream(ndjson, { encoding: 'utf8' }), crlfDelay: Infinity })) {
    if (!text.trim()) continue;
    const last = /"last_seen_date":"([0-9-]{10})"/.exec(text)?.[1] ?? '';
    if (last > newest) {
      newest = last;
      lines.length = 0;
    }
    if (last === newest && text.includes('"status_today":"active"')) lines.push(text);
    const at = seen < sampleSize ? seen : Math.floor(random() * (seen + 1));
    seen++;
    if (at < sampleSize) sample[at] = JSON.parse(text) as AdLine;
  }
  for (const text of lines) active.push(JSON.parse(text) as AdLine);
  const next = addDays(newest, 1);
  const mix: Record<string, number> = {};
  const bump = (kind: string) => {
    mix[kind] = (mix[kind] ?? 0) + 1;
  };
  const sightings: AdLine[] = [];
  const newAds = Math.round(size / 30);
  for (let i = 0; i < newAds; i++) {
    const template = sample[Math.floor(random() * sample.length)] as AdLine;
    sightings.push({ ...template, id: `feed_new_${i.toString().padStart(9, '0')}`, first_seen_date: next, last_seen_date: next, status_today: 'active', activity_days_amount: 1 });
    bump('new');
  }
  const countries = ['US', 'GB', 'DE', 'FR', 'BR', 'IN', 'JP', 'ES', 'IT', 'CA'];
  for (const line of active) {
    const r = random();
    if (r < options.ending) {
      bump('not seen (ends with the day)');
      continue;
    }
    if (r < options.ending + 0.02) {
      sightings.push({ ...line, status_today: 'inactive' });
      bump('seen inactive');
      continue;
    }
    const moved = { ...line, last_seen_date: next, activity_days_amount: line.activity_days_amount + 1, impressions: line.impressions + 1 + Math.floor(random() * 10_000) };
    const added = countries.find((c) => !line.countries.includes(c));
    if (random() < options.changing && added) {
      sightings.push({ ...moved, countries: [...line.countries, added] });
      bump('seen again, a country added');
    } else {
      sightings.push(moved);
      bump('seen again, nothing visible');
    }
  }
  for (const line of sample.slice(0, Math.round(newAds / 100))) {
    if (line.status_today !== 'inactive') continue;
    sightings.push({ ...line, status_today: 'active', last_seen_date: next, activity_days_amount: line.activity_days_amount + 1 });
    bump('old ad back');
  }
  // Shuffled: the day's sightings arrive mixed.
  for (let i = sightings.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [sightings[i], sightings[j]] = [sightings[j] as AdLine, sightings[i] as AdLine];
  }
  return { sightings: sightings.map(toAdRecord), mix, day: next };
}

/** The most frequent values among the day's sightings (what changed most: what a watcher of it sees). */
function mostFrequent(values: (string | null)[], n: number): string[] {
  const counts = new Map<string, number>();
  for (const v of values) if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, n)
    .map(([v]) => v);
}

/** What a run applied: the watermark before the day, the most changed advertisers, affiliates and domains. */
interface Applied {
  watermark: string;
  advertisers: string[];
  webmasters: string[];
  domains: string[];
  description: string;
}

/** Takes the watermark, applies the day through the service's live writer, and keeps what it did beside the copy. */
async function applyDay(
  dir: string,
  ndjson: string,
  file: string,
  search: (args: object) => Promise<AdsPage>,
  values: { batch?: string; ending?: string; changing?: string },
): Promise<Applied> {
  const batchSize = Number(values.batch ?? 2_000);
  const size = countRows(file, 'ads');
  const day = await dayOfChanges(join(dir, ndjson), size, { ending: Number(values.ending ?? 0.15), changing: Number(values.changing ?? 0.1) }, seeded(36));
  const lines = [
    `store: ${size.toLocaleString('en')} ads, ${(statSync(file).size / 1e9).toFixed(2)} GB`,
    `a day's worth of changes (the contract's 280 M new ads a month = a thirtieth of a month's intake a day; the store taken as one month's intake), ` +
      `${day.sightings.length.toLocaleString('en')} sightings of ${day.day}: ` +
      Object.entries(day.mix)
        .map(([k, n]) => `${k} ${n.toLocaleString('en')}`)
        .join(', '),
  ];
  const watermark = (await search({ limit: 1 })).pagination.watermark;
  if (!watermark) throw new Error('search_ads answered no watermark');
  const writer = new SqliteLiveWriter(file);
  const started = cpuUs();
  const wallStarted = performance.now();
  for (let i = 0; i < day.sightings.length; i += batchSize) {
    await writer.apply(day.sightings.slice(i, i + batchSize));
    if ((i / batchSize) % 10 === 9) out(`  applied ${Math.min(i + batchSize, day.sightings.length).toLocaleString('en')} sightings (${((performance.now() - wallStarted) / 1000).toFixed(0)} s)`);
  }
  await writer.close();
  const applyCpu = cpuUs() - started;
  const applyLine =
    `applied in batches of ${batchSize} through SqliteLiveWriter: ${((performance.now() - wallStarted) / 1000).toFixed(1)} s, ` +
    `${(applyCpu / day.sightings.length).toFixed(0)} µs CPU per sighting (whole process); store now ${(statSync(file).size / 1e9).toFixed(2)} GB, ` +
    `change log rows: ${countRows(file, 'ad_feed').toLocaleString('en')}`;

  const applied: Applied = {
    watermark,
    advertisers: mostFrequent(day.sightings.map((s) => s.advertiser_id), 5),
    webmasters: mostFrequent(day.sightings.map((s) => s.webmaster_id), 5),
    domains: mostFrequent(day.sightings.map((s) => s.registrable_domain), 5),
    description: [...lines, applyLine].join('\n'),
  };
  writeFileSync(join(dirname(file), 'feed-bench.json'), JSON.stringify(applied));
  return applied;
}

async function main() {
  const { values } = parseArgs({
    options: {
      store: { type: 'string' },
      runs: { type: 'string' },
      batch: { type: 'string' },
      work: { type: 'string' },
      keep: { type: 'boolean' },
      reuse: { type: 'string' },
      ending: { type: 'string' },
      changing: { type: 'string' },
      limit: { type: 'string' },
      shapes: { type: 'string' },
      week: { type: 'string' },
      batches: { type: 'string' },
    },
  });
  const dir = values.store;
  if (!dir) throw new Error('--store=DATA_DIR names a seeded store (ads.sqlite and demo-ads-N.ndjson)');
  const ndjson = readdirSync(dir).find((f) => /^demo-ads-\d+\.ndjson$/.test(f));
  if (!ndjson || !existsSync(join(dir, 'ads.sqlite'))) throw new Error(`${dir} holds no seeded store (ads.sqlite and demo-ads-N.ndjson)`);
  const runs = Number(values.runs ?? 30);
  const limit = Number(values.limit ?? 20);
  if (values.work) mkdirSync(values.work, { recursive: true });
  // --reuse: the copy an earlier run kept (--keep), its day already applied: only the calls are timed again.
  const work = values.reuse ?? mkdtempSync(join(values.work ?? tmpdir(), 'feed-bench-'));
  const file = join(work, 'ads.sqlite');
  const kept = join(work, 'feed-bench.json');
  out(`${new Date().toISOString()} load average ${load()}; ${values.reuse ? 'reusing' : `copying ${join(dir, 'ads.sqlite')} to`} ${work}`);
  if (!values.reuse) {
    copyFileSync(join(dir, 'ads.sqlite'), file);
    if (existsSync(join(dir, 'ads.sqlite-wal'))) copyFileSync(join(dir, 'ads.sqlite-wal'), `${file}-wal`);
  }

  const store = new SqliteStore({ file, workers: 0 });
  const dataWindow = new DataWindowService(store);
  const pager = new ListPager(new CursorCodec('b'.repeat(32)), dataWindow);
  const config = { PUBLIC_BASE_URL: 'http://localhost:3000', FEED_RETENTION_DAYS: 30 };
  const ads = new AdsService(store, pager, config, {} as SimilarAdsService, {} as PictureCatalogue, new AdChangesService(store, pager, config));
  const search = (args: object): Promise<AdsPage> => ads.search(searchAdsArgs().parse(args));
  try {
    const applied = values.reuse ? (JSON.parse(readFileSync(kept, 'utf8')) as Applied) : await applyDay(dir, ndjson, file, search, values);
    const { watermark } = applied;
    out(applied.description);
    dataWindow.invalidate();
    // The first feed call of a reader reads the retained log into memory (FeedIndex, change-log.ts); a plain search
    // first brings the columns forward over the day's batches.
    await search({ limit: 1 });
    const coldStarted = cpuUs();
    await search({ changed_since: watermark, limit: 1 });
    const heap = process.memoryUsage();
    out(`first feed call (reads the log into memory): ${((cpuUs() - coldStarted) / 1000).toFixed(0)} ms CPU; RSS ${(heap.rss / 1e6).toFixed(0)} MB; ${held()}`);
    const at = <T>(items: T[], i: number): T => items[i % items.length] as T;
    const { advertisers, webmasters, domains } = applied;
    const words = ['casino', 'loan', 'sale', 'game', 'dating'];
    const shapes: { name: string; args: (i: number) => object }[] = [
      { name: 'advertiser_id', args: (i) => ({ advertiser_id: at(advertisers, i) }) },
      { name: 'webmaster_id (affiliate)', args: (i) => ({ webmaster_id: at(webmasters, i) }) },
      { name: 'landing_domain', args: (i) => ({ landing_domain: at(domains, i) }) },
      { name: 'q (niche keyword)', args: (i) => ({ q: at(words, i) }) },
      { name: 'country', args: (i) => ({ country: at(['US', 'BR', 'DE', 'IN', 'FR'], i) }) },
      { name: 'no filter', args: () => ({}) },
    ];
    out('');
    out(`${runs} calls per shape and kind, interleaved (plain, feed, plain, ...), limit ${limit}, after 3 warm-up calls each; in-process store, one thread`);
    out('| filter | plain CPU p50 | plain CPU p95 | feed CPU p50 | feed CPU p95 | ratio p50 | ratio p95 | feed wall p50 | plain wall p50 | feed rows (total) | log rows examined / call | ads probed / call |');
    out('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    const ratios: string[] = [];
    let started = 0;
    const only = values.shapes?.split(',');
    for (const shape of shapes.filter((s) => !only || only.includes(s.name.split(' ')[0] ?? ''))) {
      const plain = { cpu: [] as number[], wall: [] as number[] };
      const feed = { cpu: [] as number[], wall: [] as number[], rows: 0, total: 0, examined: 0, probed: 0 };
      for (let i = -3; i < runs; i++) {
        const args = { ...shape.args(Math.max(i, 0)), limit };
        started = cpuUs();
        let wall = performance.now();
        await search(args);
        if (i >= 0) {
          plain.cpu.push(cpuUs() - started);
          plain.wall.push(performance.now() - wall);
        }
        const before = { ...feedReadStats };
        started = cpuUs();
        wall = performance.now();
        const page = await search({ ...args, changed_since: watermark });
        if (i >= 0) {
          feed.cpu.push(cpuUs() - started);
          feed.wall.push(performance.now() - wall);
          feed.rows += page.data.length;
          feed.total += page.pagination.total;
          feed.examined += feedReadStats.logRows - before.logRows;
          feed.probed += feedReadStats.adsProbed - before.adsProbed;
        }
      }
      const ratio50 = quantile(feed.cpu, 0.5) / Math.max(1, quantile(plain.cpu, 0.5));
      const ratio95 = quantile(feed.cpu, 0.95) / Math.max(1, quantile(plain.cpu, 0.95));
      ratios.push(`${shape.name} ${ratio50.toFixed(2)}x`);
      const ms = (us: number) => (us / 1000).toFixed(2);
      out(
        `| ${shape.name} | ${ms(quantile(plain.cpu, 0.5))} ms | ${ms(quantile(plain.cpu, 0.95))} ms | ${ms(quantile(feed.cpu, 0.5))} ms | ${ms(quantile(feed.cpu, 0.95))} ms | ` +
          `${ratio50.toFixed(2)}x | ${ratio95.toFixed(2)}x | ${quantile(feed.wall, 0.5).toFixed(2)} ms | ${quantile(plain.wall, 0.5).toFixed(2)} ms | ` +
          `${(feed.rows / runs).toFixed(0)} (${(feed.total / runs).toFixed(0)}) | ${(feed.examined / runs).toFixed(0)} | ${(feed.probed / runs).toFixed(0)} |`,
      );
    }
    out('');
    out(`ratio feed/plain, CPU p50 (goal <= 2x): ${ratios.join('; ')}`);
    out(`after the calls: ${held()}`);
    out(await afterBatches(file, join(dir, ndjson), search, watermark, () => dataWindow.invalidate(), Number(values.batches ?? 4)));
    out(`${new Date().toISOString()} load average ${load()}`);
  } finally {
    await store.close();
    if (values.week) out(simulatedWeek(file, Number(values.week)));
    if (values.keep || values.reuse) out(`kept ${work} (time the calls again with --reuse=${work})`);
    else rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The first feed call after a live batch (--batches=N of them, 300 new ads each, ids after every stored one, dated the
 * store's newest day: the live writer's tail path, ADR 0013): its CPU and the next call's, and whether the reader
 * rebuilt its per-position arrays or brought them forward (feedReadStats). A plain search first brings the columns
 * forward, so the feed call's own work is what is timed; CPU of this thread alone (the live writer has a thread of its
 * own). The calls between batches above do not see this cost.
 */
async function afterBatches(
  file: string,
  ndjson: string,
  search: (args: object) => Promise<AdsPage>,
  watermark: string,
  invalidate: () => void,
  count: number,
): Promise<string> {
  if (count <= 0) return '';
  const templates: AdLine[] = [];
  for await (const text of createInterface({ input: createReadStream(ndjson, { encoding: 'utf8' }), crlfDelay: Infinity })) {
    if (text.trim()) templates.push(JSON.parse(text) as AdLine);
    if (templates.length >= 300) break;
  }
  const db = new DatabaseSync(file, { readOnly: true });
  const newest = (db.prepare('SELECT max(first_seen) AS day FROM ads').get() as { day: string }).day;
  db.close();
  const stamp = Date.now().toString(36);
  const writer = new SqliteLiveWriter(file);
  const lines = [`first feed call after a live batch (${count} batches of ${templates.length} new ads; no filter, limit 20; CPU of the main thread; load average ${load()}):`];
  lines.push('| batch | path | first feed call CPU | of it, per-position arrays | next feed call CPU |', '|---:|---|---:|---:|---:|');
  try {
    for (let b = 0; b < count; b++) {
      const batch = templates.map((t, i) => ({ ...t, id: `feed_tail_${stamp}_${b}_${String(i).padStart(4, '0')}`, first_seen_date: newest, last_seen_date: newest, status_today: 'active' as const }));
      await writer.apply(batch.map(toAdRecord));
      invalidate();
      await search({ limit: 1 });
      const before = { ...feedReadStats };
      let started = threadUs();
      await search({ changed_since: watermark, limit: 20 });
      const first = threadUs() - started;
      const path = feedReadStats.builds > before.builds ? 'rebuilt' : feedReadStats.carried > before.carried ? 'brought forward' : 'none';
      started = threadUs();
      await search({ changed_since: watermark, limit: 20 });
      const next = threadUs() - started;
      lines.push(`| ${b + 1} | ${path} | ${(first / 1000).toFixed(1)} ms | ${feedReadStats.lastBuildMs.toFixed(1)} ms | ${(next / 1000).toFixed(1)} ms |`);
    }
  } finally {
    await writer.close();
  }
  return lines.join('\n');
}

/** What the feed reader held after its last call (change-feed-reader.ts feedReadStats). */
function held(): string {
  const { heldRows, heldBytes, positionBytes, lastBuildMs } = feedReadStats;
  return (
    `log held: ${heldRows.toLocaleString('en')} rows, ${(heldBytes / 1e6).toFixed(1)} MB (${(heldBytes / Math.max(1, heldRows)).toFixed(1)} B a row), ` +
    `per-position arrays ${(positionBytes / 1e6).toFixed(1)} MB (last built or brought forward in ${lastBuildMs.toFixed(1)} ms CPU, once per set of columns)`
  );
}

/**
 * The log a reader holds for a watermark `days` old (--week=7): the applied day's log rows repeated `days` times (n,
 * seq and prev moved on, each copy's first row of an ad naming its last row of the copy before), in a table of its
 * own in the copy, read into a FeedIndex as the reader reads the log. Bytes held and the CPU of the read.
 */
function simulatedWeek(file: string, days: number): string {
  const db = new DatabaseSync(file);
  try {
    const bounds = db.prepare('SELECT min(n) AS first, max(n) AS last, min(seq) AS minSeq, max(seq) AS maxSeq FROM ad_feed').get() as { first: number; last: number; minSeq: number; maxSeq: number };
    const span = bounds.last - bounds.first + 1;
    const seqSpan = bounds.maxSeq - bounds.minSeq + 1;
    db.exec(`DROP TABLE IF EXISTS feed_week; DROP TABLE IF EXISTS feed_week_last;
      CREATE TABLE feed_week (n INTEGER PRIMARY KEY, seq INTEGER NOT NULL, id TEXT NOT NULL, prev INTEGER, before TEXT, after TEXT NOT NULL, at TEXT NOT NULL);
      CREATE TABLE feed_week_last AS SELECT id, max(n) AS n FROM ad_feed GROUP BY id; CREATE INDEX feed_week_last_id ON feed_week_last (id);`);
    const copy = db.prepare(`INSERT INTO feed_week SELECT f.n + :k * :span, f.seq + :k * :seqSpan, f.id,
      CASE WHEN f.prev IS NOT NULL THEN f.prev + :k * :span WHEN :k > 0 THEN l.n + (:k - 1) * :span END, f.before, f.after, f.at
      FROM ad_feed f JOIN feed_week_last l ON l.id = f.id ORDER BY f.n`);
    for (let k = 0; k < days; k++) copy.run({ k, span, seqSpan });
    const index = new FeedIndex('week', bounds.first, bounds.minSeq - 1);
    const started = cpuUs();
    index.load(db.prepare(LOAD_ROWS.replace('FROM ad_feed f', 'FROM feed_week f')), bounds.first + days * span);
    const cpu = cpuUs() - started;
    return (
      `simulated ${days} days of log (the day's ${span.toLocaleString('en')} rows ${days} times): a watermark that old holds ${index.length.toLocaleString('en')} rows, ` +
      `${(index.bytes() / 1e6).toFixed(1)} MB (${(index.bytes() / index.length).toFixed(1)} B a row before filing per advertiser and affiliate, 8 more after, and 4 for positions), read in ${(cpu / 1e6).toFixed(1)} s CPU`
    );
  } finally {
    db.exec('DROP TABLE IF EXISTS feed_week; DROP TABLE IF EXISTS feed_week_last;');
    db.close();
  }
}

/** The change log's size and the ads in the store (a read-only connection of its own). */
function countRows(file: string, table: 'ad_feed' | 'ads'): number {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
