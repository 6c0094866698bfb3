/**
 * Benchmark (not a test): what one live batch costs as the store grows. For each seeded store (a DATA_DIR holding
 * ads.sqlite and the seed's demo NDJSON) and each mix of new ads (--new-shares, default the bench's 30% and a
 * contract-like 5%), on a copy of it: applies batches of sightings with the writer, then lets a reader bring its columns
 * forward over each batch (and answer one query of every other filter, which builds the index it needs), and prints
 * the CPU of each per sighting (median of the batches), bytes written per sighting (/proc/self/io), the write-ahead
 * log's peak and the RSS, and the ratio of the largest store to the smallest, measured in one run. A fixed calibration
 * loop runs first and last, so figures from different days (and machines) compare.
 * Goal (issue 38): <= 100 µs of CPU per sighting at 1M for the whole process (30% new), readers <= 5 µs.
 * Run: npx nx run query-api:build && node dist/apps/query-api/live-apply.js --stores=/tmp/s100k,/tmp/s1m [--batch=2000 --batches=5 --new-shares=0.3,0.05]
 * (seed each store first: DATA_DIR=/tmp/s1m node dist/apps/query-api/cli.js seed --count 1000000)
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { toAdRecord } from '../src/ingest/ad-line';
import type { AdFilter, AdRecord } from '../src/store/ad-store.port';
import { demoSightings } from '../src/ingest/demo-sightings';
import { SqliteReader } from '../src/store/sqlite/sqlite-reader';
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

/** A fixed amount of CPU work (SHA-1 over 64 MB): its time scales every other figure of the run to a reference day. */
function calibrate(): number {
  const block = Buffer.alloc(1 << 20, 7);
  const started = cpuMs();
  for (let i = 0; i < 64; i++) createHash('sha1').update(block).digest();
  return cpuMs() - started;
}

async function measure(dataDir: string, batchSize: number, batches: number, newShare: number) {
  const ndjson = readdirSync(dataDir).find((f) => /^demo-ads-\d+\.ndjson$/.test(f));
  if (!ndjson || !existsSync(join(dataDir, 'ads.sqlite'))) throw new Error(`${dataDir} holds no seeded store (ads.sqlite and demo-ads-N.ndjson)`);
  const work = mkdtempSync(join(tmpdir(), 'live-apply-'));
  const file = join(work, 'ads.sqlite');
  copyFileSync(join(dataDir, 'ads.sqlite'), file);
  try {
    const sightings = (await demoSightings(join(dataDir, ndjson), batchSize * batches, { seed: 11, newShare })).map(toAdRecord);
    // A checkpoint would store every column: keep it out of these batches (it is measured on its own below).
    const writer = new SqliteWriter(file, undefined, Number.MAX_SAFE_INTEGER);
    const reader = new SqliteReader(file);
    reader.warmUp();
    const size = await writer.size();
    const applied: number[] = [];
    const forwarded: number[] = [];
    const firstUse: number[] = [];
    const bytes: number[] = [];
    let walPeak = 0;
    for (let b = 0; b < batches; b++) {
      const batch = sightings.slice(b * batchSize, (b + 1) * batchSize);
      const before = writtenBytes();
      let started = cpuMs();
      await writer.apply(batch);
      applied.push(cpuMs() - started);
      bytes.push(writtenBytes() - before);
      walPeak = Math.max(walPeak, sizeOf(`${file}-wal`));
      started = cpuMs();
      reader.countAds({ country: 'US' }, 1); // any read brings the columns forward
      forwarded.push(cpuMs() - started);
      // The other indexes over the columns are built by the first query that needs one after a batch.
      const probe = batch[0];
      started = cpuMs();
      if (probe) for (const filter of otherFilters(probe)) reader.countAds(filter, 1);
      firstUse.push(cpuMs() - started);
    }
    const started = cpuMs();
    writer.checkpoint();
    const checkpoint = cpuMs() - started;
    reader.close();
    await writer.close();
    const perSighting = (ms: number) => (ms * 1000) / batchSize;
    return {
      size,
      newShare,
      apply: perSighting(median(applied)),
      forward: perSighting(median(forwarded)),
      firstUse: perSighting(median(firstUse)),
      bytes: median(bytes) / batchSize,
      walPeak,
      rss: process.memoryUsage().rss,
      checkpoint,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
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
    options: { stores: { type: 'string' }, batch: { type: 'string' }, batches: { type: 'string' }, 'new-shares': { type: 'string' } },
  });
  const stores = (values.stores ?? '').split(',').filter(Boolean);
  if (!stores.length) throw new Error('--stores=DIR[,DIR...] names seeded DATA_DIRs');
  const batchSize = Number(values.batch ?? 2_000);
  const batches = Number(values.batches ?? 5);
  const shares = (values['new-shares'] ?? '0.3,0.05').split(',').map(Number);
  const calibration = calibrate();
  out(`calibration: ${calibration.toFixed(0)} ms CPU (SHA-1 over 64 MB; divide figures by it to compare runs)`);
  out(`live batches of ${batchSize} sightings, ${batches} per store and mix; CPU µs per sighting, median of the batches (one thread: writer and reader run in turn)`);
  out('| ads in store | new ads | writer apply | reader brings columns forward | sum | then one query of every other filter | bytes written / sighting | WAL peak | RSS | checkpoint (all columns, ms) |');
  out('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const results = [];
  const mb = (n: number) => `${(n / 1e6).toFixed(0)} MB`;
  for (const dir of stores) {
    for (const share of shares) {
      const r = await measure(dir, batchSize, batches, share);
      results.push(r);
      out(
        `| ${r.size.toLocaleString('en')} | ${(share * 100).toFixed(0)}% | ${r.apply.toFixed(0)} | ${r.forward.toFixed(0)} | ${(r.apply + r.forward).toFixed(0)} | ` +
          `${r.firstUse.toFixed(0)} | ${r.bytes.toFixed(0)} | ${mb(r.walPeak)} | ${mb(r.rss)} | ${r.checkpoint.toFixed(0)} |`,
      );
    }
  }
  for (const share of shares) {
    const mix = results.filter((r) => r.newShare === share);
    const [small, large] = [mix[0], mix.at(-1)];
    if (!small || !large || large === small) continue;
    const ratio = (large.apply + large.forward) / (small.apply + small.forward);
    out(
      `${(share * 100).toFixed(0)}% new: cost per sighting ${large.size.toLocaleString('en')} / ${small.size.toLocaleString('en')}: ${ratio.toFixed(2)}x ` +
        `(goal: at most 1.3x); writer alone ${(large.apply / small.apply).toFixed(2)}x`,
    );
  }
  out(`calibration at the end: ${calibrate().toFixed(0)} ms CPU`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
