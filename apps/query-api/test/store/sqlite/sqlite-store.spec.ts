import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdRecord } from '../../../src/store/ad-store.port';
import { describeStoreContract } from '../store.contract';
import { DEFAULT_ROLLUP_OPTIONS, type RollupOptions } from '../../../src/store/sqlite/rollups';
import type { ReaderTuning } from '../../../src/store/sqlite/ad-reader';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../../../src/store/sqlite/sqlite-writer';

type Options = { tuning?: ReaderTuning; workers?: number };

const loadSqlite = (options: Options = {}, rollups: RollupOptions = DEFAULT_ROLLUP_OPTIONS) => async (records: AdRecord[]) => {
  const dir = mkdtempSync(join(tmpdir(), 'query-sqlite-'));
  const file = join(dir, 'ads.sqlite');
  const writer = new SqliteWriter(file, rollups);
  await writer.write(records);
  await writer.finish();
  await writer.close();
  // In-process reads unless a case asks for the worker threads (the built worker script, as the app runs it).
  const store = new SqliteStore({ file, workers: 0, ...(options.workers ? { workerScript: WORKER_SCRIPT } : {}), ...options });
  return {
    store,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

/** The test target builds query-api first (project.json), so the bundled worker is there. */
const WORKER_SCRIPT = join(__dirname, '..', '..', '..', '..', '..', 'dist', 'apps', 'query-api', 'sqlite-worker.js');

const NO_WORD_BITS: RollupOptions = { wordBitsMinShare: 1, wordBitsMaxShare: 0 };

// Every word of the small fixture gets a bitset: word searches walk the bits.
describeStoreContract('sqlite', loadSqlite({}, { wordBitsMinShare: 0, wordBitsMaxShare: 1 }));
// The same contract with every ad search (except landing_domain) on the in-memory columns, words found by FTS.
describeStoreContract('sqlite, columnar ad search', loadSqlite({ tuning: { columnarAboveCost: -1 } }, NO_WORD_BITS));
// The planner's SQL plans for words (FTS probes or FTS-driven), as for words too rare for a bitset.
describeStoreContract('sqlite, no word bitsets', loadSqlite({}, NO_WORD_BITS));
// The same contract through two worker threads: calls of one tick travel as one batch per worker.
describeStoreContract('sqlite, worker threads', loadSqlite({ workers: 2 }, { wordBitsMinShare: 0, wordBitsMaxShare: 1 }));
