import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';
import { liveSightings } from '../live-sightings';
import { offlineLoad } from './offline-load';

/**
 * The live writer copies its write-ahead log into the store file itself, once a batch is applied and its columns are
 * posted (schema.ts, applyPragmasForWriting): SQLite's automatic checkpoint ran inside COMMIT, after the batch was
 * visible, and a reader that began a read meanwhile waited for the batch's columns while pages were copied. Seen from
 * the file alone (a copy without its log), every batch is in it as soon as apply returns, small batches too (the
 * automatic checkpoint waited for 1,000 pages of log).
 */
describe("the live writer's write-ahead log", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'query-wal-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** What the store file holds without its log: the number of ads and the last batch's sequence number. */
  const inFileAlone = (file: string, name: string) => {
    const copy = join(dir, `${name}.sqlite`);
    copyFileSync(file, copy);
    const db = new DatabaseSync(copy);
    try {
      const ads = (db.prepare('SELECT count(*) AS n FROM ads').get() as { n: number }).n;
      const seq = (db.prepare("SELECT value FROM meta WHERE key = 'seq'").get() as { value: string } | undefined)?.value ?? '0';
      return { ads, seq: Number(seq) };
    } finally {
      db.close();
    }
  };

  it('is in the store file as soon as each batch is applied, whatever the batch size', async () => {
    const { firstLoad, batches } = liveSightings(600, 0.5, 20);
    const file = await offlineLoad(join(dir, 'live.sqlite'), firstLoad);
    const writer = new SqliteWriter(file);
    const ids = new Set(firstLoad.map((ad) => ad.id));
    try {
      for (const [i, batch] of batches.slice(0, 8).entries()) {
        await writer.apply(batch);
        for (const ad of batch) ids.add(ad.id);
        expect(inFileAlone(file, `after-${i}`)).toEqual({ ads: ids.size, seq: i + 1 });
      }
    } finally {
      await writer.close();
    }
  });
});
