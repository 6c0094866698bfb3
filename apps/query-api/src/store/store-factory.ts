import type { AppConfig } from '../config';
import type { AdStore, AdStoreWriter } from './ad-store.port';
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

/** The reading side of the configured engine. */
export function createAdStore(config: StoreConfig, options: { workerScript?: string } = {}): AdStore {
  if (config.STORE_ENGINE === 'elasticsearch') return ElasticsearchAdStore.fromSettings(elasticsearchSettingsFrom(config));
  return new SqliteStore({ file: sqliteFileIn(config.DATA_DIR), workers: config.QUERY_WORKERS, ...options });
}

/** The writing side of the configured engine (ingest and seed); `sqliteFile`: another file than the store's (a load). */
export function createAdStoreWriter(config: StoreConfig, options: { sqliteFile?: string } = {}): AdStoreWriter {
  if (config.STORE_ENGINE === 'elasticsearch') return ElasticsearchAdStoreWriter.fromSettings(elasticsearchSettingsFrom(config));
  return new SqliteWriter(options.sqliteFile ?? sqliteFileIn(config.DATA_DIR));
}

/** What the live door needs of a writer: apply batches on top of the served store, and close. */
export type LiveWriter = Pick<AdStoreWriter, 'apply' | 'close'>;

/**
 * The writer the serving process applies live sightings with. SQLite: the one writer of this replica's store file
 * (each replica owns its file); Elasticsearch: a writer of the shared indices (replicas share the work).
 */
export function createLiveWriter(config: StoreConfig, options: { workerScript?: string } = {}): LiveWriter {
  if (config.STORE_ENGINE === 'elasticsearch') return createAdStoreWriter(config);
  return new SqliteLiveWriter(sqliteFileIn(config.DATA_DIR), options.workerScript);
}
