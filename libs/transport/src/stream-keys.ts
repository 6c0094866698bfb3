import type { ServiceName } from '@adintel/contracts';

/**
 * Where the transport keeps its messages. Streams are ordinary keys, so each Redis database is already a
 * separate environment (PUB/SUB channels were not, and needed a `dbN:` prefix).
 */
export const StreamKeys = {
  /** Requests to one service; its replicas share them through the consumer group named after the service. */
  requests: (service: ServiceName) => `transport:${service}:requests`,
  /** Every event; each subscribing service reads it through its own consumer group. */
  events: 'transport:events',
  /** Events a service's handler failed on every delivery, with that group's name, for an operator to look at. */
  deadEvents: 'transport:events:dead',
  /** Exists while some replica of the service proved within the liveness window that it makes progress. */
  alive: (service: ServiceName) => `transport:${service}:alive`,
  /** Replies to one client process, read by that process alone. */
  replies: (clientId: string) => `transport:replies:${clientId}`,
} as const;

/**
 * Memory bounds (approximate trimming, `MAXLEN ~`): a stream never keeps many more entries than this.
 * Entries are small (a JSON payload plus ~6 fields; a search request ~300 B, a search reply ~15 KB).
 */
export const STREAM_LIMITS = {
  requestsMaxLen: 10_000,
  eventsMaxLen: 100_000,
  deadEventsMaxLen: 10_000,
  repliesMaxLen: 1_000,
  /** A reply stream outlives its last reply by this long, so a dead client's inbox disappears by itself. */
  repliesTtlMs: 60_000,
} as const;
