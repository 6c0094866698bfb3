import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { AdRecord } from '../../../src/store/ad-store.port';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';
import { describeChangeFeedContract, feedSince, positionOf } from '../change-feed.contract';
import { FIXTURE_RECORDS } from '../store-fixture';

/** A store loaded offline, then fed live by a SqliteWriter on the same file; read in-process. */
async function openSqlite(records: AdRecord[]) {
  const dir = mkdtempSync(join(tmpdir(), 'query-feed-'));
  const file = join(dir, 'ads.sqlite');
  const writer = new SqliteWriter(file);
  await writer.write(records);
  await writer.finish();
  const store = new SqliteStore({ file, workers: 0 });
  return {
    file,
    writer,
    store,
    apply: async (batch: readonly AdRecord[]) => {
      await writer.apply(batch);
    },
    close: async () => {
      await store.close();
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describeChangeFeedContract('sqlite', openSqlite);

describe('SQLite change log', () => {
  it('drops changes older than the retention window: a watermark before them is expired', async () => {
    const subject = await openSqlite(FIXTURE_RECORDS);
    try {
      const since = await positionOf(subject.store);
      const base = FIXTURE_RECORDS[1] as AdRecord;
      await subject.apply([{ ...base, id: 'ad_old' }]);
      const between = await positionOf(subject.store);
      // Age the logged change past the 30-day default, as if the batch had come 31 days ago.
      const db = new DatabaseSync(subject.file);
      db.prepare('UPDATE ad_feed SET at = ?').run(new Date(Date.now() - 31 * 24 * 3_600_000).toISOString());
      db.close();
      await subject.apply([{ ...base, id: 'ad_recent' }]);
      expect((await subject.store.adChanges({ filter: {}, since, limit: 5, countUpTo: 5 })).outcome).toBe('expired');
      expect(await feedSince(subject.store, between)).toEqual([['ad_recent', 'new']]);
    } finally {
      await subject.close();
    }
  });

  it('starts over with a reload: a watermark of the data before it is foreign', async () => {
    const subject = await openSqlite(FIXTURE_RECORDS);
    try {
      const since = await positionOf(subject.store);
      await subject.writer.clear();
      await subject.writer.write(FIXTURE_RECORDS);
      await subject.writer.finish();
      expect((await subject.store.adChanges({ filter: {}, since, limit: 5, countUpTo: 5 })).outcome).toBe('foreign');
    } finally {
      await subject.close();
    }
  });
});
