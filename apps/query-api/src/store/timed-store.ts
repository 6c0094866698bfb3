import type { AppMetrics } from '@adintel/observability';
import type { AdStore } from './ad-store.port';

/** Operations that are not queries and are not timed. */
const UNTIMED = new Set<PropertyKey>(['close', 'engine']);

/**
 * The store with every query timed into `adintel_store_query_duration_seconds{engine, operation}`.
 * A proxy rather than a decorator per method: each AdStore method is timed, including ones added later.
 */
export function timedStore(store: AdStore, metrics: AppMetrics): AdStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || UNTIMED.has(property)) return value;
      const operation = String(property);
      return (...args: unknown[]) =>
        metrics.timeStoreQuery(target.engine, operation, () => Promise.resolve(value.apply(target, args) as unknown));
    },
  });
}
