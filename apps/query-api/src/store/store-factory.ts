import type { AppConfig } from '../config';
import type { AdStore, AdStoreWriter, LiveWriterFactory } from './ad-store.port';
import { ElasticsearchAdStore } from './elasticsearch/elasticsearch-ad-store';
import { ElasticsearchAdStoreWriter } from './elasticsearch/elasticsearch-ad-store-writer';
import { elasticsearchSettingsFrom } from './elasticsearch/es-client';
import { SqliteLiveWriter } from './sqlite/sqlite-live-writer';
import { SqliteStore, sqliteFileIn } from './sqlite/sqlite-store';
import { SqliteWriter } from './sqlite/sqlite-writer';

export type StoreConfig = Pick<
  AppConfig,
  'STORE_ENGINE' | 'DATA_DIR' | 'QUERY_WORKERS' | 'ES_URL' | 'ES_INDEX_PREFIX' | 'ES_REQUEST_TIMEOUT_MS'
>;

/** The serving side of the configured engine: its reads, and the opener of the live writer that feeds them. */
export interface ServingEngine {
  store: AdStore;
  openLiveWriter: LiveWriterFactory;
}

/**
 * The one place that picks the engine the app serves from. SQLite: the live writer is the one writer of this replica's
 * store file (each replica owns its file), in a thread of its own, and publishes the columns of each batch it applies
 * to this process's query workers (sqlite/shared-columns.ts); Elasticsearch: a writer of the shared indices (replicas share the work, searches see refreshes).
 */
export function createServingEngine(config: StoreConfig, options: { workerScript?: string; writerScript?: string } = {}): ServingEngine {
  if (config.STORE_ENGINE === 'elasticsearch') {
    return { store: ElasticsearchAdStore.fromSettings(elasticsearchSettingsFrom(config)), openLiveWriter: () => createAdStoreWriter(config) };
  }
  const file = sqliteFileIn(config.DATA_DIR);
  const store = new SqliteStore({ file, workers: config.QUERY_WORKERS, workerScript: options.workerScript });
  return { store, openLiveWriter: () => new SqliteLiveWriter(file, { script: options.writerScript }) };
}

/**
 * The writing side of the configured engine (ingest and seed); `sqliteFile`: another file than the store's (a load),
 * `progress`: told as each step of the load's finish starts (SQLite).
 */
export function createAdStoreWriter(config: StoreConfig, options: { sqliteFile?: string; progress?: (line: string) => void } = {}): AdStoreWriter {
  if (config.STORE_ENGINE === 'elasticsearch') return ElasticsearchAdStoreWriter.fromSettings(elasticsearchSettingsFrom(config));
  // A load's own file is written as an offline load (no write-ahead log until it is finished).
  const { sqliteFile, progress } = options;
  return sqliteFile ? new SqliteWriter(sqliteFile, undefined, undefined, { offline: true, progress }) : new SqliteWriter(sqliteFileIn(config.DATA_DIR));
}
