/**
 * The equivalence check of live-equivalence.ts, itself checked on the engine that runs on the build machines
 * (embedded SQLite): an Elasticsearch cluster runs it only when ES_URL is set (elasticsearch.contract.spec.ts), so
 * this shows here that the check passes for a live store that applied every batch and fails for one that missed
 * the last batches. The SQLite engine's own equivalence test lives with the SQLite tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdRecord } from '../../../src/store/ad-store.port';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';
import { expectSameAnswers, movingSightings } from './live-equivalence';

const sightings = movingSightings();
const dir = mkdtempSync(join(tmpdir(), 'query-equivalence-'));
const stores: SqliteStore[] = [];

async function storeOf(name: string, load: readonly AdRecord[], batches: AdRecord[][]): Promise<SqliteStore> {
  const file = join(dir, `${name}.sqlite`);
  const writer = new SqliteWriter(file);
  await writer.write(load);
  await writer.finish();
  for (const batch of batches) await writer.apply(batch);
  await writer.close();
  const store = new SqliteStore({ file, workers: 0 });
  stores.push(store);
  return store;
}

afterAll(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the live/offline equivalence check', () => {
  it('passes when the live store applied every batch, and fails when it missed the last ones', async () => {
    const offline = await storeOf('offline', sightings.final, []);
    const live = await storeOf('live', [], sightings.batches);
    await expectSameAnswers({ live, offline }, sightings.versions);
    const behind = await storeOf('behind', [], sightings.batches.slice(0, 3));
    await expect(expectSameAnswers({ live: behind, offline }, sightings.versions)).rejects.toThrow();
  }, 60_000);
});
