import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { brokerUrl } from '@adintel/transport';
import type { AppConfig } from '../config';

/** The live door's settings, derived once from the config (the service and the CLI read the same ones). */
export interface LiveSettings {
  readonly enabled: boolean;
  /** The Redis holding the stream: the transport's broker (TRANSPORT_URL, else REDIS_URL). */
  readonly url: string;
  readonly stream: string;
  readonly group: string;
  /** This process in the group. */
  readonly consumer: string;
  /**
   * SQLite: this replica is the only consumer of its group (the group is its store file's), so at start it takes over
   * every entry an earlier run of it left pending, however recently. Elasticsearch: replicas share the group, and only
   * entries idle for `claimIdleMs` are taken from another consumer.
   */
  readonly exclusive: boolean;
  readonly maxLen: number;
  readonly batchMax: number;
  /** Least ms between the starts of two batches that were not full (INGEST_BATCH_INTERVAL_MS). */
  readonly batchIntervalMs: number;
  readonly claimIdleMs: number;
}

export type LiveConfig = Pick<
  AppConfig,
  | 'REDIS_URL'
  | 'TRANSPORT_URL'
  | 'TRANSPORT_TIMEOUT_MS'
  | 'STORE_ENGINE'
  | 'DATA_DIR'
  | 'INGEST_LIVE'
  | 'INGEST_STREAM'
  | 'INGEST_GROUP'
  | 'INGEST_STREAM_MAX_LEN'
  | 'INGEST_BATCH_MAX'
  | 'INGEST_BATCH_INTERVAL_MS'
  | 'INGEST_CLAIM_IDLE_MS'
>;

/**
 * One group per store: Elasticsearch replicas share one store, so one group; each SQLite replica owns its file, named
 * by its host and its data directory (stable across restarts: a StatefulSet pod keeps both; two processes on one
 * machine differ by directory).
 */
export function defaultGroup(config: Pick<AppConfig, 'STORE_ENGINE' | 'DATA_DIR'>, host = hostname()): string {
  if (config.STORE_ENGINE === 'elasticsearch') return 'query-api';
  const dir = createHash('sha256').update(resolve(config.DATA_DIR)).digest('hex').slice(0, 8);
  return `query-api:${host}:${dir}`;
}

export function liveSettingsFrom(config: LiveConfig): LiveSettings {
  return {
    enabled: config.INGEST_LIVE,
    url: brokerUrl(config),
    stream: config.INGEST_STREAM,
    group: config.INGEST_GROUP ?? defaultGroup(config),
    consumer: `${hostname()}:${process.pid}`,
    exclusive: config.STORE_ENGINE === 'sqlite',
    maxLen: config.INGEST_STREAM_MAX_LEN,
    batchMax: config.INGEST_BATCH_MAX,
    batchIntervalMs: config.INGEST_BATCH_INTERVAL_MS,
    claimIdleMs: config.INGEST_CLAIM_IDLE_MS,
  };
}
