// DuckDB spike of issue 38 (docs/decisions/0008-live-engine-measured.md), kept so the figures can be measured again.
// Not part of the build, and @duckdb/node-api is not a dependency of the project: run it from a scratch directory,
//   mkdir /tmp/duckspike && cd /tmp/duckspike && npm install @duckdb/node-api
//   cp <repo>/apps/query-api/bench/duckdb-spike.mjs . && node duckdb-spike.mjs 1000000 5 0.3   # ads, batches, new share
// A table of the ads' moving and filter columns (no documents, text or entity records), 2,000-sighting batches applied
// with one UPDATE ... FROM and one INSERT ... SELECT, and the live bench's key queries. CPU of the whole process
// (DuckDB's own threads included) per sighting, and RSS.
import { rmSync } from 'node:fs';
// eslint-disable-next-line @nx/enforce-module-boundaries -- run from a scratch directory with its own install (above)
import { DuckDBInstance } from '@duckdb/node-api';
const N = Number(process.argv[2] ?? 1_000_000);
const BATCHES = Number(process.argv[3] ?? 5);
const NEW_SHARE = Number(process.argv[4] ?? 0.3);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const rss = () => Math.round(process.memoryUsage().rss / 1e6);
const file = `/tmp/duckspike/ads-${N}.duckdb`;
rmSync(file, { force: true }); rmSync(file + '.wal', { force: true });
const db = await DuckDBInstance.create(file, { threads: '2' });
const c = await db.connect();
const t = cpu();
await c.run(`CREATE TABLE ads AS SELECT 'ad' || i AS id, i AS rid,
  ['facebook','tiktok','google','instagram'][1 + i % 4] AS platform, 'adv' || (i % 20000) AS advertiser_id,
  'cr' || (i // 3) AS creative_id, CASE WHEN i % 3 = 0 THEN 'inactive' ELSE 'active' END AS status,
  (19000 + i % 700)::INTEGER AS first_seen, (19000 + i % 700 + i % 30)::INTEGER AS last_seen,
  (i % 30)::INTEGER AS days_active, (i % 30)::INTEGER AS activity_days, (i * 7919 % 100000)::BIGINT AS impressions,
  ((i * 31) % 1000) / 10.0 AS popularity,
  [['US','BR','DE','FR','IN','GB','MX','ES'][1 + i % 8], ['US','BR','DE','FR','IN','GB','MX','ES'][1 + (i // 8) % 8]] AS countries,
  ['gambling_and_betting','finance','ecommerce','games','health'][1 + i % 5] AS category
  FROM range(${N}) t(i)`);
await c.run('CREATE UNIQUE INDEX ads_id ON ads (id)');
await c.run('CHECKPOINT');
const loadMs = cpu() - t;
console.log(`load ${N} ads: ${(loadMs / 1000).toFixed(1)} s CPU (${Math.round(N / (loadMs / 1000))} ads per CPU-second), rss ${rss()} MB`);

const QUERIES = {
  search_country: `SELECT id, title_stub FROM (SELECT id, platform AS title_stub, first_seen FROM ads WHERE list_contains(countries, 'US')) ORDER BY first_seen DESC, id LIMIT 20`,
  search_cat_country: `SELECT id FROM ads WHERE category = 'gambling_and_betting' AND list_contains(countries, 'BR') ORDER BY first_seen DESC, id LIMIT 20`,
  search_status_platform: `SELECT id FROM ads WHERE status = 'active' AND platform = 'tiktok' ORDER BY first_seen DESC, id LIMIT 20`,
  count_us: `SELECT count(*) FROM ads WHERE list_contains(countries, 'US')`,
  get_ad: `SELECT * FROM ads WHERE id = 'ad123457'`,
  trends_geo: `SELECT c, (last_seen // 7) AS week, count(*) FROM (SELECT unnest(countries) AS c, last_seen FROM ads WHERE last_seen >= 19600) GROUP BY ALL`,
  breakdown_adv: `SELECT advertiser_id, count(*) n FROM ads WHERE list_contains(countries, 'US') GROUP BY 1 ORDER BY n DESC LIMIT 20`,
};
async function queryRound(label) {
  const parts = [];
  for (const [name, sql] of Object.entries(QUERIES)) {
    const walls = []; const cpus = [];
    for (let k = 0; k < 5; k++) { const w = performance.now(); const u = cpu(); await c.runAndReadAll(sql); walls.push(performance.now() - w); cpus.push(cpu() - u); }
    walls.sort((a, b) => a - b); cpus.sort((a, b) => a - b);
    parts.push(`${name} ${walls[2].toFixed(1)} ms wall / ${cpus[2].toFixed(1)} ms CPU`);
  }
  console.log(`queries ${label}: ${parts.join('; ')}`);
}
await queryRound('idle');

await c.run('CREATE TABLE batch (id VARCHAR, i BIGINT, fresh BOOLEAN)');
let next = N; let seq = 0;
const perBatch = [];
for (let b = 0; b < BATCHES; b++) {
  const rows = [];
  for (let k = 0; k < 2000; k++) {
    seq++;
    if (k < 2000 * NEW_SHARE) { const i = next++; rows.push([`ad${i}`, i, 1]); }
    else { const i = (seq * 104729) % N; rows.push([`ad${i}`, i, 0]); }
  }
  const u = cpu();
  await c.run('BEGIN');
  await c.run('DELETE FROM batch');
  const app = await c.createAppender('batch');
  for (const [id, i, fresh] of rows) { app.appendVarchar(id); app.appendBigInt(BigInt(i)); app.appendBoolean(!!fresh); app.endRow(); }
  app.closeSync();
  await c.run(`UPDATE ads SET last_seen = 19800 + ${b}, status = 'active', days_active = days_active + 1,
    activity_days = activity_days + 1, impressions = impressions + 100 FROM batch WHERE NOT batch.fresh AND ads.id = batch.id`);
  await c.run(`INSERT INTO ads SELECT id, i, 'tiktok', 'adv' || (i % 20000), 'cr' || (i // 3), 'active', 19800, 19800, 1, 1, 10, 1.0,
    ['US','BR'], 'finance' FROM batch WHERE fresh`);
  await c.run('COMMIT');
  perBatch.push(cpu() - u);
}
perBatch.sort((a, b) => a - b);
const med = perBatch[Math.floor(perBatch.length / 2)];
console.log(`apply: ${BATCHES} batches of 2,000 (${NEW_SHARE * 100}% new): median ${med.toFixed(0)} ms CPU per batch = ${(med * 1000 / 2000).toFixed(0)} µs per sighting; rss ${rss()} MB`);
const cp = cpu(); await c.run('CHECKPOINT'); console.log(`checkpoint after the batches: ${(cpu() - cp).toFixed(0)} ms CPU`);
await queryRound('after ingest');
