/**
 * Every custom metric the apps export, defined once: name, help, labels and buckets.
 * Node process metrics (prom-client's default collectors) come on top of these.
 */

/** Latency buckets in seconds: sub-millisecond store hits up to the 10 s transport timeout. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const METRICS = {
  httpRequests: {
    name: 'adintel_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code',
    labelNames: ['method', 'route', 'status'],
  },
  httpDuration: {
    name: 'adintel_http_request_duration_seconds',
    help: 'HTTP request latency, by method, route template and status code',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
  },
  toolCalls: {
    name: 'adintel_tool_calls_total',
    help: 'Tool calls through the gateway (MCP and REST alike), by tool and the HTTP status they map to (402 short balance, 429 rate limited)',
    labelNames: ['tool', 'status'],
  },
  toolDuration: {
    name: 'adintel_tool_call_duration_seconds',
    help: 'Tool call latency at the gateway (rate limit, reserve, query, settle), by tool and status',
    labelNames: ['tool', 'status'],
    buckets: LATENCY_BUCKETS,
  },
  tokensCharged: {
    name: 'adintel_tokens_charged_total',
    help: 'Tokens charged by settled calls, by tool and plan of the paying pool',
    labelNames: ['tool', 'plan'],
  },
  limitRefusals: {
    name: 'adintel_limit_refusals_total',
    help: 'Requests refused (429) by an abuse limit of the auth server or the gateway, by limit (see docs/security.md); trials_global is the alert',
    labelNames: ['limit'],
  },
  transportMessages: {
    name: 'adintel_transport_messages_total',
    help: 'Transport messages, by direction (sent by a client, handled by a server), pattern and outcome',
    labelNames: ['direction', 'pattern', 'outcome'],
  },
  transportDuration: {
    name: 'adintel_transport_message_duration_seconds',
    help: 'Transport message latency (round trip when sent, handler time when handled), by direction, pattern and outcome',
    labelNames: ['direction', 'pattern', 'outcome'],
    buckets: LATENCY_BUCKETS,
  },
  storeQueries: {
    name: 'adintel_store_query_duration_seconds',
    help: "query-api store query latency, by engine, store operation and outcome ('ok' or 'error')",
    labelNames: ['engine', 'operation', 'outcome'],
    buckets: LATENCY_BUCKETS,
  },
} as const;

export type MetricDefinition = (typeof METRICS)[keyof typeof METRICS];
