/**
 * Benchmark (not a test): what one live batch costs as the store grows. For each seeded store (a DATA_DIR holding
 * ads.sqlite and the seed's demo NDJSON) and each mix of new ads (--new-shares, default the bench's 30% and a
 * contract-like 5%), on copies of it:
 * - one thread: applies batches of sightings with the writer (which brings the columns forward and publishes them,
 *   ADR 0009), then a reader that takes the publication and a reader that derives the columns itself (the readers'
 *   work before ADR 0009) each answer one query of every filter; CPU per sighting of each (median of the batches),
 *   bytes written per sighting (/proc/self/io), the write-ahead log's peak and the RSS;
 * - the real threads (--threads, on by default): the live writer's thread and two query workers as the app runs them,
 *   queries of every filter after each batch, with the workers taking the writer's columns ("shared") and, in the same
 *   run, deriving their own ("derived", the readers' work before ADR 0009): CPU per sighting of the whole process
 *   (/proc/self/stat, every thread with the garbage collector's), the writer's thread, each worker and the main thread.
 * The ratio of the largest store to the smallest is printed too. A fixed calibration loop runs first and last, so
 * figures from different days (and machines) compare; the load average is printed with them.
 * Goal (issue 38): <= 100 µs of CPU per sighting at 1M for the whole process (30% new), readers <= 5 µs.
 * `--query-cost=ROUNDS` adds what live batches cost the queries (measureQueryCost).
 * Run: npx nx run query-api:build && node dist/apps/query-api/live-apply.js --stores=/tmp/s100k,/tmp/s1m [--batch=2000 --batches=5 --new-shares=0.3,0.05 --profile=DIR --sql-stats --wal-pages --query-cost=40]
 * (seed each store first: DATA_DIR=/tmp/s1m node dist/apps/query-api/cli.js seed --count 1000000)
 */
import { Session } from 'node:inspector/promises';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync, StatementSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { calibrationMs, pageOwners, walFramePages } from '@adintel/testing';
import { toAdRecord } from '../src/ingest/ad-line';
import type { AdFilter, AdRecord } from '../src/store/ad-store.port';
import { demoSightings } from '../src/ingest/demo-sightings';
import { SqliteLiveWriter } from '../src/store/sqlite/sqlite-live-writer';
import { SqliteReader } from '../src/store/sqlite/sqlite-reader';
import { SqliteStore } from '../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../src/store/sqlite/sqlite-writer';

const out = (s: string) => process.stdout.write(`${s}\n`);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
/** Bytes this process has caused to be written to storage so far (Linux; 0 elsewhere). */
const writtenBytes = () => {
  try {
    return Number(/write_bytes: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
};
const sizeOf = (file: string) => (existsSync(file) ? statSync(file).size : 0);

/** CPU time of the whole process so far (ms): every thread, from /proc/self/stat (utime + stime, in clock ticks of 10 ms). */
const processCpuMs = () => {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return cpuMs();
  }
};
const threadMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

/** A copy of the store's file in a directory of its own, and the sightings of the mix. */
/**
 * `--new-ids`: 'after' (default) names new ads so their ids sort after every seeded id (the columns' tail path before
 * ADR 0018 took them); 'among' so they fall among the stored ids, as real platforms' ids do.
 */
let newIds: 'after' | 'among' = 'after';

async function prepare(dataDir: string, count: number, newShare: number) {
  const ndjson = readdirSync(dataDir).find((f) => /^demo-ads-\d+\.ndjson$/.test(f));
  if (!ndjson || !existsSync(join(dataDir, 'ads.sqlite'))) throw new Error(`${dataDir} holds no seeded store (ads.sqlite and demo-ads-N.ndjson)`);
  const sightings = (await demoSightings(join(dataDir, ndjson), count, { seed: 11, newShare, newIds })).map(toAdRecord);
  const copy = () => {
    const work = mkdtempSync(join(tmpdir(), 'live-apply-'));
    copyFileSync(join(dataDir, 'ads.sqlite'), join(work, 'ads.sqlite'));
    return { file: join(work, 'ads.sqlite'), remove: () => rmSync(work, { recursive: true, force: true }) };
  };
  return { sightings, copy };
}

/** Every reader's query after a batch: a country count, then one filter of each other kind (each needs its own index). */
function queriesOf(probe: AdRecord | undefined): AdFilter[] {
  return [{ country: 'US' }, ...(probe ? otherFilters(probe) : [])];
}

/**
 * `--profile=DIR`: a CPU profile of the one-thread writer's batches after the first (which loads the columns and starts
 * the publisher's logs), written as DIR/writer-<ads>-<share>.cpuprofile (open it in Chrome's DevTools).
 */
async function profiler(dir: string | undefined) {
  if (!dir) return null;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  return {
    start: () => session.post('Profiler.start'),
    stop: async (name: string) => {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/**
 * `--sql-stats`: every SQLite statement this thread runs is counted and timed (wall time of the call, on one thread:
 * the writer's in the one-thread step), by its SQL text; printed per sighting for the batches after the first.
 */
const sqlStats = new Map<string, { calls: number; ms: number }>();
let sqlCounting = false;
function countSql(): void {
  const proto = StatementSync.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const method of ['run', 'get', 'all', 'iterate'] as const) {
    const original = proto[method];
    if (!original) continue;
    proto[method] = function (this: StatementSync, ...args: unknown[]) {
      if (!sqlCounting) return original.apply(this, args);
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const sql = this.sourceSQL.replace(/\s+/g, ' ').slice(0, 110);
        const entry = sqlStats.get(sql) ?? { calls: 0, ms: 0 };
        entry.calls++;
        entry.ms += performance.now() - started;
        sqlStats.set(sql, entry);
      }
    };
  }
}

function printSqlStats(sightings: number): void {
  const rows = [...sqlStats].sort((a, b) => b[1].ms - a[1].ms);
  const calls = rows.reduce((n, [, e]) => n + e.calls, 0);
  const ms = rows.reduce((n, [, e]) => n + e.ms, 0);
  out(`SQL: ${(calls / sightings).toFixed(1)} statements and ${((ms * 1000) / sightings).toFixed(0)} µs per sighting (wall, one thread); the top 15:`);
  for (const [sql, e] of rows.slice(0, 15)) out(`  ${(e.calls / sightings).toFixed(2).padStart(6)} × ${((e.ms * 1000) / sightings).toFixed(1).padStart(6)} µs  ${sql}`);
  sqlStats.clear();
}

async function measure(dataDir: string, batchSize: number, batches: number, newShare: number, profileDir?: string) {
  const { sightings, copy } = await prepare(dataDir, batchSize * batches, newShare);
  const { file, remove } = copy();
  try {
    // A checkpoint would store every column: keep it out of these batches (it is measured on its own below).
    const writer = new SqliteWriter(file, undefined, Number.MAX_SAFE_INTEGER);
    const taking = new SqliteReader(file);
    const deriving = new SqliteReader(file, { follow: false });
    taking.warmUp();
    deriving.warmUp();
    const size = await writer.size();
    const applied: number[] = [];
    const kernel: number[] = [];
    const took: number[] = [];
    const derived: number[] = [];
    const bytes: number[] = [];
    let walPeak = 0;
    const profile = await profiler(profileDir);
    for (let b = 0; b < batches; b++) {
      if (b === 1) await profile?.start();
      sqlCounting = b >= 1;
      const batch = sightings.slice(b * batchSize, (b + 1) * batchSize);
      const before = writtenBytes();
      let started = cpuMs();
      const systemBefore = process.cpuUsage().system;
      await writer.apply(batch);
      sqlCounting = false;
      applied.push(cpuMs() - started);
      kernel.push((process.cpuUsage().system - systemBefore) / 1000);
      bytes.push(writtenBytes() - before);
      walPeak = Math.max(walPeak, sizeOf(`${file}-wal`));
      for (const [reader, into] of [[taking, took], [deriving, derived]] as const) {
        started = cpuMs();
        for (const filter of queriesOf(batch[0])) reader.countAds(filter, 1);
        into.push(cpuMs() - started);
      }
    }
    await profile?.stop(`writer-${size}-${newShare}`);
    if (sqlStats.size) printSqlStats(batchSize * (batches - 1));
    const tails = writer.tailForwards;
    const started = cpuMs();
    writer.checkpoint();
    const checkpoint = cpuMs() - started;
    taking.close();
    deriving.close();
    await writer.close();
    const perSighting = (ms: number) => (ms * 1000) / batchSize;
    return {
      size,
      tails,
      newShare,
      apply: perSighting(median(applied)),
      kernel: perSighting(median(kernel)),
      took: perSighting(median(took)),
      derived: perSighting(median(derived)),
      bytes: median(bytes) / batchSize,
      walPeak,
      rss: process.memoryUsage().rss,
      checkpoint,
    };
  } finally {
    remove();
  }
}

/**
 * `--wal-pages`: the pages live batches write, by the table or index each belongs to (what the commit writes to the
 * write-ahead log, and a checkpoint writes again). After a first batch (not counted) the log is emptied and a
 * connection holds a read snapshot, so no checkpoint can restart the log under the batches; their frames are then
 * read from the log and mapped to b-trees with dbstat. A page written by two batches counts twice, as it is written.
 */
async function measurePages(dataDir: string, batchSize: number, batches: number, newShare: number) {
  const { sightings, copy } = await prepare(dataDir, batchSize * (batches + 1), newShare);
  const { file, remove } = copy();
  const holder = new DatabaseSync(file);
  try {
    const writer = new SqliteWriter(file, undefined, Number.MAX_SAFE_INTEGER);
    await writer.apply(sightings.slice(0, batchSize));
    holder.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    holder.exec('BEGIN');
    holder.prepare('SELECT count(*) FROM meta').get();
    for (let b = 1; b <= batches; b++) await writer.apply(sightings.slice(b * batchSize, (b + 1) * batchSize));
    holder.exec('COMMIT');
    // Read before the writer closes: closing stores the columns (a checkpoint of them), which no batch does here.
    const { pageSize, pages } = walFramePages(file);
    const owners = pageOwners(holder);
    const frames = new Map<string, number>();
    for (const page of pages) {
      const owner = owners.get(page) ?? '(free)';
      frames.set(owner, (frames.get(owner) ?? 0) + 1);
    }
    await writer.close();
    return { newShare, pageSize, sightings: batchSize * batches, frames: [...frames].sort((a, b) => b[1] - a[1]) };
  } finally {
    holder.close();
    remove();
  }
}

/**
 * The app's threads on a copy of the store: the live writer's thread, two query workers (taking the writer's columns,
 * or deriving their own), the queries of every filter after each batch from the main thread. The first batch warms the
 * writer up (it loads the columns once) and is not counted. CPU µs per sighting over the batches after it.
 */
async function measureThreads(dataDir: string, batchSize: number, batches: number, newShare: number, follow: boolean) {
  const { sightings, copy } = await prepare(dataDir, batchSize * (batches + 1), newShare);
  const { file, remove } = copy();
  const store = new SqliteStore({ file, workers: 2, workerScript: join(__dirname, 'sqlite-worker.js'), tuning: { follow } });
  const writer = new SqliteLiveWriter(file, { script: join(__dirname, 'sqlite-writer-worker.js') });
  try {
    const size = (await store.countAds({}, Number.MAX_SAFE_INTEGER)).total;
    const after = async (batch: AdRecord[]) => {
      await writer.apply(batch);
      // Both workers answer: the calls of one tick spread over them.
      await Promise.all(queriesOf(batch[0]).flatMap((filter) => [store.countAds(filter, 1), store.countAds(filter, 1)]));
    };
    await after(sightings.slice(0, batchSize));
    const snapshot = async () => ({
      process: processCpuMs(),
      main: threadMs(process.threadCpuUsage()),
      writer: threadMs(await writer.cpuUsage()),
      workers: (await store.workerCpuUsage()).map(threadMs),
      bytes: writtenBytes(),
    });
    const start = await snapshot();
    for (let b = 1; b <= batches; b++) await after(sightings.slice(b * batchSize, (b + 1) * batchSize));
    const end = await snapshot();
    const per = (ms: number) => (ms * 1000) / (batchSize * batches);
    return {
      size,
      newShare,
      follow,
      process: per(end.process - start.process),
      main: per(end.main - start.main),
      writer: per(end.writer - start.writer),
      workers: end.workers.map((w, i) => per(w - (start.workers[i] ?? 0))),
      bytes: (end.bytes - start.bytes) / (batchSize * batches),
      rss: process.memoryUsage().rss,
    };
  } finally {
    await writer.close();
    await store.close();
    remove();
  }
}

/** The stack benchmark's searches (apps/e2e/bench/live-bench.ts): each a page of 20 and its count, as the search service asks. */
const SEARCH_FILTERS: AdFilter[] = [
  { country: 'US' },
  { categories: ['gambling_and_betting'], country: 'BR' },
  { status: 'active', platforms: ['tiktok'] },
  { words: ['bonus'] },
];

/**
 * `--query-cost`: what live batches cost the queries. The app's threads on a copy of the store; rounds of the stack
 * benchmark's searches (page and count) and four ads read by id through the two query workers, one round every 300 ms
 * (about the stack benchmark's 30 calls a second), in blocks of five taken in turns: with no batch applied, and while
 * the writer applies batches back to back (as the app runs when sightings keep coming). Prints the workers' CPU per
 * round and the calls' p50/p95 each way.
 */
async function measureQueryCost(dataDir: string, batchSize: number, rounds: number, newShare: number) {
  const blocks = Math.max(1, Math.round(rounds / 5));
  const { sightings, copy } = await prepare(dataDir, batchSize * (blocks * 10 + 1), newShare);
  const { file, remove } = copy();
  const store = new SqliteStore({ file, workers: 2, workerScript: join(__dirname, 'sqlite-worker.js') });
  const writer = new SqliteLiveWriter(file, { script: join(__dirname, 'sqlite-writer-worker.js') });
  try {
    const ids = sightings.filter((_, i) => i % 97 === 0).map((ad) => ad.id);
    let next = 0;
    let applied = 0;
    const round = async (latencies: number[]) => {
      const due = performance.now() + 300;
      const timed = async (call: () => Promise<unknown>) => {
        const started = performance.now();
        await call();
        latencies.push(performance.now() - started);
      };
      const calls: (() => Promise<unknown>)[] = SEARCH_FILTERS.flatMap((filter) => [
        () => store.searchAds({ filter, sort: 'date', order: 'desc', limit: 21 }),
        () => store.countAds(filter, 10_000),
      ]);
      for (let i = 0; i < 4; i++) calls.push(() => store.getAd(ids[next++ % ids.length] as string));
      const before = (await store.workerCpuUsage()).map(threadMs);
      await Promise.all(calls.map(timed));
      const after = (await store.workerCpuUsage()).map(threadMs);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      return after.reduce((n, ms, i) => n + ms - (before[i] ?? 0), 0);
    };
    await writer.apply(sightings.slice(0, batchSize));
    applied = 1;
    for (let i = 0; i < 3; i++) await round([]);
    const quiet = { cpu: [] as number[], latencies: [] as number[] };
    const busy = { cpu: [] as number[], latencies: [] as number[], batches: 0 };
    for (let b = 0; b < blocks; b++) {
      for (let r = 0; r < 5; r++) quiet.cpu.push(await round(quiet.latencies));
      let applying = true;
      const feeding = (async () => {
        while (applying && (applied + 1) * batchSize <= sightings.length) {
          await writer.apply(sightings.slice(applied * batchSize, (applied + 1) * batchSize));
          applied++;
          busy.batches++;
        }
      })();
      for (let r = 0; r < 5; r++) busy.cpu.push(await round(busy.latencies));
      applying = false;
      await feeding;
    }
    const size = (await store.countAds({}, Number.MAX_SAFE_INTEGER)).total;
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? 0;
    const each = (x: typeof quiet) => ({ cpu: sum(x.cpu) / x.cpu.length, p50: pct(x.latencies, 50), p95: pct(x.latencies, 95) });
    return { size, newShare, quiet: each(quiet), busy: each(busy), batches: busy.batches };
  } finally {
    await writer.close();
    await store.close();
    remove();
  }
}

/** One filter of each kind the country count above does not use, on the batch's first ad: each needs its own index. */
function otherFilters(ad: AdRecord): AdFilter[] {
  return [
    { advertiserId: ad.advertiser_id },
    { webmasterId: ad.webmaster_id ?? 'none' },
    { creativeId: ad.creative_id },
    { appId: ad.app?.id ?? 'none' },
    { landingDomain: ad.landing_domain },
    { categories: ad.categories.slice(0, 1) },
    { dateFrom: ad.last_seen_date },
  ];
}

async function main() {
  const { values } = parseArgs({
    options: {
      stores: { type: 'string' },
      batch: { type: 'string' },
      batches: { type: 'string' },
      'new-shares': { type: 'string' },
      threads: { type: 'boolean', default: true },
      'no-threads': { type: 'boolean', default: false },
      profile: { type: 'string' },
      'sql-stats': { type: 'boolean', default: false },
      'new-ids': { type: 'string', default: 'after' },
      'wal-pages': { type: 'boolean', default: false },
      'query-cost': { type: 'string' },
    },
  });
  if (values['new-ids'] !== 'after' && values['new-ids'] !== 'among') throw new Error('--new-ids is after or among');
  newIds = values['new-ids'];
  if (values['sql-stats']) countSql();
  const stores = (values.stores ?? '').split(',').filter(Boolean);
  if (!stores.length) throw new Error('--stores=DIR[,DIR...] names seeded DATA_DIRs');
  const batchSize = Number(values.batch ?? 2_000);
  const batches = Number(values.batches ?? 5);
  const shares = (values['new-shares'] ?? '0.3,0.05').split(',').map(Number);
  const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
  const calibration = calibrationMs();
  out(`${new Date().toISOString()}, load average ${load()}`);
  out(`calibration: ${calibration.toFixed(0)} ms CPU (SHA-1 over 64 MB; divide figures by it to compare runs)`);
  out(`new ads' ids: ${newIds} the stored ones`);
  out(`live batches of ${batchSize} sightings, ${batches} per store and mix; CPU µs per sighting, median of the batches (one thread: the writer and two readers in turn)`);
  out('| ads in store | new ads | writer apply (with publishing; of it in the kernel) | reader taking the columns | reader deriving them | bytes written / sighting | WAL peak | RSS | checkpoint (all columns, ms) | tail batches |');
  out('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const results = [];
  const mb = (n: number) => `${(n / 1e6).toFixed(0)} MB`;
  for (const dir of stores) {
    for (const share of shares) {
      const r = await measure(dir, batchSize, batches, share, values.profile);
      results.push(r);
      out(
        `| ${r.size.toLocaleString('en')} | ${(share * 100).toFixed(0)}% | ${r.apply.toFixed(0)} (${r.kernel.toFixed(0)}) | ${r.took.toFixed(1)} | ${r.derived.toFixed(0)} | ` +
          `${r.bytes.toFixed(0)} | ${mb(r.walPeak)} | ${mb(r.rss)} | ${r.checkpoint.toFixed(0)} | ${r.tails}/${batches} |`,
      );
    }
  }
  for (const share of shares) {
    const mix = results.filter((r) => r.newShare === share);
    const [small, large] = [mix[0], mix.at(-1)];
    if (!small || !large || large === small) continue;
    const ratio = (large.apply + 2 * large.took) / (small.apply + 2 * small.took);
    out(`${(share * 100).toFixed(0)}% new: writer and two readers per sighting ${large.size.toLocaleString('en')} / ${small.size.toLocaleString('en')}: ${ratio.toFixed(2)}x (goal: at most 1.3x)`);
  }
  if (values['wal-pages']) {
    for (const dir of stores) {
      for (const share of shares) {
        const r = await measurePages(dir, batchSize, batches, share);
        const total = r.frames.reduce((n, [, f]) => n + f, 0);
        out('');
        out(`pages written per sighting, ${dir}, ${(share * 100).toFixed(0)}% new, ${batches} batches: ${(total / r.sightings).toFixed(2)} (${((total * r.pageSize) / r.sightings / 1000).toFixed(1)} KB)`);
        out(r.frames.slice(0, 12).map(([owner, f]) => `${owner} ${(f / r.sightings).toFixed(2)}`).join(', '));
      }
    }
  }
  if (values['query-cost']) {
    const rounds = Number(values['query-cost']);
    out('');
    out(`what live batches cost the queries: ${rounds} rounds each way, in blocks of five taken in turns (4 searches with their counts, 4 ads by id, a round every 300 ms; two query workers), load average ${load()}`);
    out('| ads in store | new ads | workers CPU ms / round: no batch | batches applying | calls p50 / p95 ms: no batch | batches applying | batches applied meanwhile |');
    out('|---:|---:|---:|---:|---:|---:|---:|');
    for (const dir of stores) {
      for (const share of shares) {
        const r = await measureQueryCost(dir, batchSize, rounds, share);
        out(
          `| ${r.size.toLocaleString('en')} | ${(share * 100).toFixed(0)}% | ${r.quiet.cpu.toFixed(2)} | ${r.busy.cpu.toFixed(2)} (${(r.busy.cpu / r.quiet.cpu).toFixed(2)}x) | ` +
            `${r.quiet.p50.toFixed(2)} / ${r.quiet.p95.toFixed(2)} | ${r.busy.p50.toFixed(2)} / ${r.busy.p95.toFixed(2)} | ${r.batches} |`,
        );
      }
    }
  }
  if (values.threads && !values['no-threads']) {
    out('');
    out(`the app's threads (live writer thread, two query workers), load average ${load()}; CPU µs per sighting over ${batches} batches after a first one`);
    out('| ads in store | new ads | readers | whole process | writer thread | worker 1 | worker 2 | main | bytes written / sighting | RSS |');
    out('|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const dir of stores) {
      for (const share of shares) {
        // Side by side: the readers of ADR 0009 and the readers deriving their columns (before it), in turn.
        for (const follow of [true, false]) {
          const r = await measureThreads(dir, batchSize, batches, share, follow);
          out(
            `| ${r.size.toLocaleString('en')} | ${(share * 100).toFixed(0)}% | ${follow ? 'shared' : 'derived'} | ${r.process.toFixed(0)} | ${r.writer.toFixed(0)} | ` +
              `${r.workers.map((w) => w.toFixed(1)).join(' | ')} | ${r.main.toFixed(0)} | ${r.bytes.toFixed(0)} | ${mb(r.rss)} |`,
          );
        }
      }
    }
  }
  out(`calibration at the end: ${calibrationMs().toFixed(0)} ms CPU; load average ${load()}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
