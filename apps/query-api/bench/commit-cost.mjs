// What another connection's commit costs a reader's next reads (issue 38: get_ad and search_ads slowed under ingest),
// with the readers' memory map and without it, side by side. SQLite drops a read connection's page cache, and unmaps
// its memory map, when it starts a read transaction after another connection wrote; this measures it alone, on a copy
// of a seeded store (it adds a table `bench_touch` to the copy):
//   cp /tmp/s1m/ads.sqlite /tmp/cc/ads.sqlite && node apps/query-api/bench/commit-cost.mjs /tmp/cc/ads.sqlite 1,3,10
// Arguments: the store, the commit periods to try (a commit every N reads). Reads, each in a read transaction of its
// own as the readers run them: get_ad's statement for one id, and a page's documents (50 rows by rid, as search_ads
// reads them after the columns chose the page), for ids spread over the store.
// Prints CPU µs per read for each reader (mmap_size 1 GB, the readers' setting, and 0) with no commit and with a commit
// every N reads (the commit's own CPU left out), in turns. Its quiet reads hit the same 10,000 ids, which a 64 MB page
// cache holds: without the map, reads spread over a 1M store cost more (docs/performance.md, Live data).
import { DatabaseSync } from 'node:sqlite';

const [file, periods = '1,3,10'] = process.argv.slice(2);
if (!file) throw new Error('usage: commit-cost.mjs STORE [READS_PER_COMMIT,...]');
const MMAP = { 'mmap 1 GB': 1073741824, 'no mmap': 0 };
const writer = new DatabaseSync(file);
writer.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; CREATE TABLE IF NOT EXISTS bench_touch (x)');
const touch = writer.prepare('INSERT INTO bench_touch VALUES (1)');
const readers = Object.entries(MMAP).map(([name, bytes]) => {
  const db = new DatabaseSync(file, { readOnly: true });
  db.exec(`PRAGMA temp_store = MEMORY; PRAGMA cache_size = -65536; PRAGMA mmap_size = ${bytes}`);
  const getAd = db.prepare('SELECT d.doc, a.* FROM ads a JOIN ad_docs d ON d.rid = a.rid WHERE a.id = ?');
  const page = db.prepare(`SELECT d.rid, d.doc, a.* FROM ad_docs d JOIN ads a ON a.rid = d.rid WHERE d.rid IN (${Array(50).fill('?').join(',')})`);
  return { name, db, getAd, page };
});
const [first] = readers;
const ids = first.db.prepare('SELECT id FROM ads WHERE rid % 97 = 0').all().map((row) => row.id);
const maxRid = Number(first.db.prepare('SELECT max(rid) AS m FROM ads').get().m);
const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/** CPU µs per read over `n` reads, a commit every `commitEvery` (0: none), the commits' own CPU left out. */
function perRead(reader, kind, n, commitEvery) {
  let commits = 0;
  const started = cpuUs();
  for (let i = 0; i < n; i++) {
    if (commitEvery && i % commitEvery === 0) {
      const at = cpuUs();
      touch.run();
      commits += cpuUs() - at;
    }
    reader.db.exec('BEGIN');
    if (kind === 'get_ad') reader.getAd.get(ids[(i * 7919) % ids.length]);
    else reader.page.all(...Array.from({ length: 50 }, (_, j) => 1 + ((i * 7919 + j * 104729) % maxRid)));
    reader.db.exec('COMMIT');
  }
  return (cpuUs() - started - commits) / n;
}

const runs = { get_ad: 10_000, 'page of 50': 1_000 };
for (const reader of readers) for (const [kind, n] of Object.entries(runs)) perRead(reader, kind, n, 0); // caches and maps warmed up
console.log(`${ids.length} ids, max rid ${maxRid}; CPU µs per read, no commit / a commit every N reads`);
for (let round = 0; round < 2; round++) {
  for (const [kind, n] of Object.entries(runs)) {
    for (const every of periods.split(',').map(Number)) {
      const cells = readers.map((reader) => {
        const quiet = perRead(reader, kind, n, 0);
        const committed = perRead(reader, kind, n, every);
        return `${reader.name} ${quiet.toFixed(1)} / ${committed.toFixed(1)} (${(committed / quiet).toFixed(2)}x)`;
      });
      console.log(`round ${round + 1}, ${kind}, every ${every}: ${cells.join('; ')}`);
    }
  }
}
