import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStoreContract } from '../store.contract';
import { SqliteStore } from './sqlite-store';
import { SqliteWriter } from './sqlite-writer';

describeStoreContract('sqlite', async (records) => {
  const dir = mkdtempSync(join(tmpdir(), 'query-sqlite-'));
  const file = join(dir, 'ads.sqlite');
  const writer = new SqliteWriter(file);
  await writer.write(records);
  await writer.finish();
  await writer.close();
  // In-process reads: the worker pool runs the same SqliteReader (covered by the process test).
  const store = new SqliteStore({ file, workers: 0 });
  return {
    store,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
