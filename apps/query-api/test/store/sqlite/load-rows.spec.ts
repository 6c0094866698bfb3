import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { toAdRecord } from '../../../src/ingest/ad-line';
import { generateDemoAds } from '../../../src/ingest/demo-generator';
import type { AdRecord } from '../../../src/store/ad-store.port';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';

/** Each list table's rows, by ad id (rids differ between loads), and the rows no ad holds. */
function lists(file: string) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const out: Record<string, unknown> = {};
    for (const table of ['ad_countries', 'ad_categories', 'ad_languages']) {
      out[table] = db.prepare(`SELECT a.id, l.value FROM ${table} l JOIN ads a ON a.rid = l.rid ORDER BY a.id, l.value`).all().map((r) => `${r.id} ${r.value}`);
      out[`${table} orphans`] = (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE rid NOT IN (SELECT rid FROM ads)`).get() as { n: number }).n;
    }
    out.ads = (db.prepare('SELECT count(*) AS n FROM ads').get() as { n: number }).n;
    return out;
  } finally {
    db.close();
  }
}

async function load(file: string, batches: AdRecord[][]): Promise<void> {
  const writer = new SqliteWriter(file, undefined, undefined, { offline: true });
  for (const batch of batches) await writer.write(batch);
  await writer.finish();
  await writer.close();
}

describe('a bulk load\'s list rows (written many to a statement)', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'query-load-rows-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are those of each id\'s last version, when an id comes again in the same batch or a later one', async () => {
    const ads = [...generateDemoAds(600, 5)].map(toAdRecord);
    const changed = (ad: AdRecord, n: number): AdRecord => ({
      ...ad,
      countries: n % 2 ? ['ZZ', ...ad.countries] : ['YY'],
      categories: [`again_${n}`],
      languages: n % 3 ? [] : ['xx', ...ad.languages],
    });
    // Ids 0-49 again right after themselves in the first batch (their rows not inserted yet), 50-99 again in the
    // second batch, 0-9 a third time in the second.
    const first = [...ads.slice(0, 50).flatMap((ad, i) => [ad, changed(ad, i)]), ...ads.slice(50, 300)];
    const second = [...ads.slice(300), ...ads.slice(50, 100).map((ad, i) => changed(ad, i + 50)), ...ads.slice(0, 10).map((ad, i) => changed(ad, i + 100))];
    const latest = new Map<string, AdRecord>();
    for (const ad of [...first, ...second]) latest.set(ad.id, ad);

    const replaced = join(dir, 'replaced.sqlite');
    await load(replaced, [first, second]);
    const fresh = join(dir, 'fresh.sqlite');
    await load(fresh, [[...latest.values()]]);

    const got = lists(replaced);
    expect(got).toEqual(lists(fresh));
    expect(got.ads).toBe(600);
    expect(got['ad_countries orphans']).toBe(0);
    expect((got.ad_categories as string[]).filter((row) => row.includes(' again_')).length).toBe(100);
  });
});
