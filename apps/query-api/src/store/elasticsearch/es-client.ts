import { Client, errors } from '@elastic/elasticsearch';
import { ServiceError } from '@adintel/contracts';

/** What the engine reads from the environment (ES_URL, ES_REQUEST_TIMEOUT_MS, ES_INDEX_PREFIX). */
export interface ElasticsearchSettings {
  url: string;
  requestTimeoutMs: number;
  indexPrefix: string;
}

export const DEFAULT_ES_REQUEST_TIMEOUT_MS = 5_000;
export const DEFAULT_ES_INDEX_PREFIX = 'adintel';

/** Reads the ES settings from an env-like record; throws naming the variable when one is unusable. */
export function elasticsearchSettingsFrom(env: Record<string, string | number | undefined>): ElasticsearchSettings {
  const url = env['ES_URL'];
  if (typeof url !== 'string' || !/^https?:\/\/.+/.test(url)) {
    throw new Error('ES_URL must be an http(s) URL of the Elasticsearch cluster when STORE_ENGINE=elasticsearch');
  }
  const timeout = Number(env['ES_REQUEST_TIMEOUT_MS'] ?? DEFAULT_ES_REQUEST_TIMEOUT_MS);
  if (!Number.isInteger(timeout) || timeout <= 0) {
    throw new Error('ES_REQUEST_TIMEOUT_MS must be a positive integer (milliseconds)');
  }
  const prefix = String(env['ES_INDEX_PREFIX'] ?? DEFAULT_ES_INDEX_PREFIX);
  return { url, requestTimeoutMs: timeout, indexPrefix: prefix };
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
