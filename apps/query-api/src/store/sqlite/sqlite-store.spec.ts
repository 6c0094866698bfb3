import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdRecord } from '../ad-store.port';
import { describeStoreContract } from '../store.contract';
import { SqliteStore } from './sqlite-store';
import { SqliteWriter } from './sqlite-writer';

const loadSqlite = (options: { columnarAboveCost?: number } = {}) => async (records: AdRecord[]) => {
  const dir = mkdtempSync(join(tmpdir(), 'query-sqlite-'));
  const file = join(dir, 'ads.sqlite');
  const writer = new SqliteWriter(file);
  await writer.write(records);
  await writer.finish();
  await writer.close();
  // In-process reads: the worker pool runs the same SqliteReader (covered by the process test).
  const store = new SqliteStore({ file, workers: 0, ...options });
  return {
    store,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

describeStoreContract('sqlite', loadSqlite());
// The same contract with every ad search (except landing_domain) on the in-memory columns.
describeStoreContract('sqlite, columnar ad search', loadSqlite({ columnarAboveCost: -1 }));
