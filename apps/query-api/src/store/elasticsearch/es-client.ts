import { Client, errors } from '@elastic/elasticsearch';
import { z } from 'zod';
import { loadConfig } from '@adintel/config';
import { ServiceError } from '@adintel/contracts';
import { elasticsearchConfigShape } from '../../config';

/** What the engine reads from the configuration (ES_URL, ES_REQUEST_TIMEOUT_MS, ES_INDEX_PREFIX, ES_ADS_SHARDS, ES_REPLICAS). */
export interface ElasticsearchSettings {
  url: string;
  requestTimeoutMs: number;
  indexPrefix: string;
  layout: IndexLayout;
}

/** Shards and replicas of the indices the writer creates (the sizing rule is in docs/operations.md). */
export interface IndexLayout {
  adsShards: number;
  replicas: number;
}

export const DEFAULT_LAYOUT: IndexLayout = { adsShards: 1, replicas: 1 };

/** The app config's ES variables, with ES_URL required (the app config requires it when STORE_ENGINE=elasticsearch). */
const settingsSchema = z.object({
  ...elasticsearchConfigShape,
  ES_URL: elasticsearchConfigShape.ES_URL.unwrap(),
});

/** Validates the ES settings by the app config's rules; throws a ConfigError naming each unusable variable. */
export function elasticsearchSettingsFrom(env: Record<string, string | number | undefined>): ElasticsearchSettings {
  const config = loadConfig(settingsSchema, Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === undefined ? v : String(v)])));
  return {
    url: config.ES_URL,
    requestTimeoutMs: config.ES_REQUEST_TIMEOUT_MS,
    indexPrefix: config.ES_INDEX_PREFIX,
    layout: { adsShards: config.ES_ADS_SHARDS, replicas: config.ES_REPLICAS },
  };
}

/**
 * The client has no request timeout by default: a stuck cluster would hold a caller forever.
 * One retry only, so a dead node fails fast into a 503 instead of multiplying the wait.
 */
export function createElasticsearchClient(settings: ElasticsearchSettings): Client {
  return new Client({
    node: settings.url,
    requestTimeout: settings.requestTimeoutMs,
    maxRetries: 1,
    compression: true,
    name: 'query-api',
  });
}

/**
 * Turns a client failure into the typed error callers see: unreachable cluster -> `unavailable` (503),
 * slow cluster -> `timeout` (504). Anything else is a fault of ours (a bad request body) -> `internal`.
 */
export function toServiceError(error: unknown, operation: string): ServiceError {
  if (error instanceof ServiceError) return error;
  if (error instanceof errors.TimeoutError) {
    return ServiceError.of('timeout', `Elasticsearch did not answer ${operation} in time`);
  }
  if (error instanceof errors.ResponseError) {
    const status = error.statusCode ?? 0;
    if (status === 408 || status === 504) return ServiceError.of('timeout', `Elasticsearch timed out on ${operation}`);
    if (status === 429 || status === 502 || status === 503) {
      return ServiceError.of('unavailable', `Elasticsearch is overloaded or unavailable (${status}) on ${operation}`);
    }
    return ServiceError.of('internal', `Elasticsearch rejected ${operation}`);
  }
  if (
    error instanceof errors.ConnectionError ||
    error instanceof errors.NoLivingConnectionsError ||
    error instanceof errors.ProductNotSupportedError ||
    error instanceof errors.RequestAbortedError
  ) {
    return ServiceError.of('unavailable', `Elasticsearch is unreachable (${operation})`);
  }
  return ServiceError.of('internal', `Elasticsearch ${operation} failed`);
}
