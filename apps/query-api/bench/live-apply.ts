/**
 * Benchmark (not a test): what one live batch costs as the store grows. For each seeded store (a DATA_DIR holding
 * ads.sqlite and the seed's demo NDJSON), on a copy of it: applies batches of sightings (30% new ads, 70% re-sightings)
 * with the writer, then lets a reader bring its columns forward over each batch (and answer one query of every other
 * filter, which builds the index it needs), and prints the CPU of each per batch
 * (median of the batches) and the ratio of the largest store to the smallest, measured in one run.
 * Goal (issue 27): applying 2,000 sightings to a 1M store costs at most 2x what it costs at 100k.
 * Run: npx nx run query-api:build && node dist/apps/query-api/live-apply.js --stores=/tmp/s100k,/tmp/s1m [--batch=2000 --batches=5]
 * (seed each store first: DATA_DIR=/tmp/s1m node dist/apps/query-api/cli.js seed --count 1000000)
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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

async function measure(dataDir: string, batchSize: number, batches: number) {
  const ndjson = readdirSync(dataDir).find((f) => /^demo-ads-\d+\.ndjson$/.test(f));
  if (!ndjson || !existsSync(join(dataDir, 'ads.sqlite'))) throw new Error(`${dataDir} holds no seeded store (ads.sqlite and demo-ads-N.ndjson)`);
  const work = mkdtempSync(join(tmpdir(), 'live-apply-'));
  const file = join(work, 'ads.sqlite');
  copyFileSync(join(dataDir, 'ads.sqlite'), file);
  try {
    const sightings = (await demoSightings(join(dataDir, ndjson), batchSize * batches, { seed: 11 })).map(toAdRecord);
    // A checkpoint would store every column: keep it out of these batches (it is measured on its own below).
    const writer = new SqliteWriter(file, undefined, Number.MAX_SAFE_INTEGER);
    const reader = new SqliteReader(file);
    reader.warmUp();
    const size = await writer.size();
    const applied: number[] = [];
    const forwarded: number[] = [];
    const firstUse: number[] = [];
    for (let b = 0; b < batches; b++) {
      const batch = sightings.slice(b * batchSize, (b + 1) * batchSize);
      let started = cpuMs();
      await writer.apply(batch);
      applied.push(cpuMs() - started);
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
    return { size, apply: median(applied), forward: median(forwarded), firstUse: median(firstUse), checkpoint };
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
  const { values } = parseArgs({ options: { stores: { type: 'string' }, batch: { type: 'string' }, batches: { type: 'string' } } });
  const stores = (values.stores ?? '').split(',').filter(Boolean);
  if (!stores.length) throw new Error('--stores=DIR[,DIR...] names seeded DATA_DIRs');
  const batchSize = Number(values.batch ?? 2_000);
  const batches = Number(values.batches ?? 5);
  out(`live batches of ${batchSize} sightings (30% new ads, 70% re-sightings), ${batches} per store; CPU ms, median per batch`);
  out('| ads in store | writer apply | reader brings columns forward | batch total | then one query of every other filter | checkpoint (all columns) |');
  out('|---:|---:|---:|---:|---:|---:|');
  const results = [];
  for (const dir of stores) {
    const r = await measure(dir, batchSize, batches);
    results.push(r);
    out(
      `| ${r.size.toLocaleString('en')} | ${r.apply.toFixed(0)} | ${r.forward.toFixed(0)} | ${(r.apply + r.forward).toFixed(0)} | ${r.firstUse.toFixed(0)} | ${r.checkpoint.toFixed(0)} |`,
    );
  }
  const [small, large] = [results[0], results.at(-1)];
  if (small && large && large !== small) {
    const ratio = (large.apply + large.forward) / (small.apply + small.forward);
    const withEvery = (large.apply + large.forward + large.firstUse) / (small.apply + small.forward + small.firstUse);
    out(
      `batch cost ${large.size.toLocaleString('en')} / ${small.size.toLocaleString('en')}: ${ratio.toFixed(2)}x (goal: at most 2x); writer alone ${(large.apply / small.apply).toFixed(2)}x; ` +
        `with a query of every other filter after each batch ${withEvery.toFixed(2)}x`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
