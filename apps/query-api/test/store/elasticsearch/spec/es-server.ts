/**
 * A stand-in Elasticsearch HTTP server for tests that run the real apps (query-api as a process) with
 * STORE_ENGINE=elasticsearch. No Elasticsearch server can run on the build machines (no package, no Docker), so this
 * one stands in: every request is checked against the official specification and the rules (es-rules.ts) and kept
 * with its errors; every answer is built in the specification's shapes (es-answers.ts) and checked against the
 * endpoint's response type before it leaves. It proves requests are well-formed; it cannot prove what a cluster
 * would answer (docs/operations.md, "Elasticsearch: what has been verified").
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { bulkAnswer, searchAnswer } from './es-answers';
import { MemoryCluster } from './es-memory';
import { httpRequestErrors, ndjsonLines } from './es-rules';
import { specification } from './es-spec';

export interface SeenRequest {
  endpoint: string;
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

export interface StandInCluster {
  url: string;
  /** Every request received, in order. */
  requests: SeenRequest[];
  /** Specification and rule errors of the requests, and of the stand-in's own answers. */
  violations: string[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
const ACK = { acknowledged: true };

/** The answer of each endpoint the engine uses; anything else is a violation (an endpoint the engine should not call). */
function answer(endpoint: string, path: string, body: unknown): { status: number; body?: Json } {
  const index = decodeURIComponent(path.split('/').filter(Boolean)[0] ?? '');
  switch (endpoint) {
    case 'ping':
      return { status: 200 };
    case 'info':
      return {
        status: 200,
        body: {
          name: 'stand-in',
          cluster_name: 'stand-in',
          cluster_uuid: 'stand-in',
          version: {
            number: '9.2.0',
            build_flavor: 'default',
            build_type: 'docker',
            build_hash: 'stand-in',
            build_date: '2025-10-01T00:00:00.000Z',
            build_snapshot: false,
            lucene_version: '10.3.0',
            minimum_wire_compatibility_version: '8.19.0',
            minimum_index_compatibility_version: '8.0.0',
          },
          tagline: 'You Know, for Search',
        },
      };
    case 'search':
      return { status: 200, body: searchAnswer(index, (body ?? {}) as Json) };
    case 'count':
      return { status: 200, body: { count: 3, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 } } };
    case 'bulk':
      return { status: 200, body: bulkAnswer(Array.isArray(body) ? body : []) };
    case 'indices.put_index_template':
    case 'indices.put_mapping':
    case 'indices.update_aliases':
    case 'indices.delete':
      return { status: 200, body: ACK };
    case 'indices.create':
      return { status: 200, body: { ...ACK, shards_acknowledged: true, index } };
    case 'indices.refresh':
      return { status: 200, body: { _shards: { total: 1, successful: 1, failed: 0 } } };
    case 'indices.get_alias': {
      const alias = decodeURIComponent(path.split('/').filter(Boolean).at(-1) ?? '');
      return { status: 200, body: { [`${alias}-0`]: { aliases: { [alias]: {} } } } };
    }
    case 'indices.get':
      return { status: 200, body: {} };
    case 'open_point_in_time':
      return { status: 200, body: { id: `pit-${index}`, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 } } };
    case 'close_point_in_time':
      return { status: 200, body: { succeeded: true, num_freed: 1 } };
    default:
      return { status: 400, body: { error: { type: 'illegal_argument_exception', reason: `the stand-in does not serve ${endpoint}` }, status: 400 } };
  }
}

async function bodyOf(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  if (!chunks.length) return undefined;
  let raw = Buffer.concat(chunks);
  if (request.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
  const text = raw.toString('utf8');
  if (!text.trim()) return undefined;
  return String(request.headers['content-type'] ?? '').includes('ndjson') ? ndjsonLines(text) : (JSON.parse(text) as unknown);
}

/**
 * An HTTP server that checks every request against the specification and the rules and keeps it, then lets
 * `handle` answer: the stand-in and the recording proxy differ only there.
 */
async function startCheckingServer(
  handle: (seen: SeenRequest, request: IncomingMessage, reply: (status: number, headers: Record<string, string>, text: string) => void) => Promise<void>,
): Promise<StandInCluster> {
  const spec = specification();
  const requests: SeenRequest[] = [];
  const violations: string[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://local');
      const method = request.method ?? 'GET';
      const query = Object.fromEntries(url.searchParams);
      const body = await bodyOf(request);
      const seen = { endpoint: spec.route(method, url.pathname)?.endpoint.name ?? 'unknown', method, path: url.pathname, query, body };
      violations.push(...httpRequestErrors(seen));
      requests.push(seen);
      await handle(seen, request, (status, headers, text) => {
        response.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(method === 'HEAD' ? '' : text)) });
        response.end(method === 'HEAD' ? undefined : text);
      });
    })().catch((error: unknown) => {
      violations.push(`server failure: ${error instanceof Error ? error.stack : String(error)}`);
      response.writeHead(502);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    violations,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Endpoints the memory answers even when the stand-in answers the rest in shape only: the feed's position document,
 * and the generations of an offline load (aliases, templates, the copy task), whose answers the engine acts on.
 */
const DOCUMENT_ENDPOINTS = new Set([
  'get',
  'index',
  'create',
  'indices.create',
  'indices.get_alias',
  'indices.update_aliases',
  'indices.get_index_template',
  'indices.put_index_template',
  'indices.delete_index_template',
  'reindex',
  'tasks.get',
]);

/**
 * `memory: true`: the stand-in keeps what it is sent and evaluates searches (es-memory.ts, a double for a real
 * cluster), so the engine's results can be checked here; otherwise searches are answered in shape only (es-answers.ts)
 * and only the documents written by id are kept. Either way every request and every answer is checked.
 */
export async function startStandInCluster(
  options: {
    memory?: boolean;
    /**
     * Told each request before it is answered; `lost` leaves it unapplied and unanswered (502): the request of a
     * client killed as it sent it, which a cluster never received (process tests kill a load at chosen requests).
     */
    onRequest?: (seen: SeenRequest) => 'lost' | undefined;
  } = {},
): Promise<StandInCluster> {
  const spec = specification();
  const memory = new MemoryCluster();
  const cluster: StandInCluster = await startCheckingServer(async (seen, _request, reply) => {
    const { endpoint, method, path, query, body } = seen;
    if (options.onRequest?.(seen) === 'lost') {
      reply(502, {}, '');
      return;
    }
    const remembered = options.memory || DOCUMENT_ENDPOINTS.has(endpoint) ? memory.answer(endpoint, method, path, query, body) : undefined;
    const result = remembered ?? answer(endpoint, path, body);
    if (result.status < 300 && result.body) {
      const errors = endpoint === 'search' ? spec.validateSearchResponse((body ?? {}) as Json, result.body) : spec.validateResponse(endpoint, result.body);
      cluster.violations.push(...errors.map((e) => `answer to ${method} ${path}: ${e}`));
    }
    // A cluster's refusals the engine expects (404 of a get, 409 of a conditional write, 400 of an index that exists)
    // are answers; any other failure of the stand-in is a request it should not have been sent.
    if (result.status >= 300 && !remembered) cluster.violations.push(`${method} ${path}: ${JSON.stringify(result.body)}`);
    reply(result.status, { 'content-type': 'application/vnd.elasticsearch+json; compatible-with=9', 'x-elastic-product': 'Elasticsearch' }, result.body ? JSON.stringify(result.body) : '');
  });
  return cluster;
}

/**
 * A recording proxy in front of a real cluster (ES_URL): every request is checked like the stand-in's, forwarded
 * as received (decompressed), and the pair is appended to `file` as one NDJSON line ({request, status, response}).
 * This is the record half of record-and-replay; startReplayCluster is the other.
 */
export function startRecordingProxy(target: string, file: string): Promise<StandInCluster> {
  return startCheckingServer(async (seen, request, reply) => {
    const ndjson = String(request.headers['content-type'] ?? '').includes('ndjson');
    const body = seen.body;
    const sentBody = body === undefined ? undefined : ndjson ? `${(body as unknown[]).map((l) => JSON.stringify(l)).join('\n')}\n` : JSON.stringify(body);
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'accept', 'authorization']) if (request.headers[name]) headers[name] = String(request.headers[name]);
    const answer = await fetch(new URL(request.url ?? '/', target), { method: seen.method, headers, body: sentBody });
    const text = await answer.text();
    const { endpoint: _endpoint, ...recorded } = seen;
    appendFileSync(file, `${JSON.stringify({ request: recorded, status: answer.status, response: text ? (JSON.parse(text) as unknown) : null })}\n`);
    const out: Record<string, string> = { 'content-type': answer.headers.get('content-type') ?? 'application/json' };
    const product = answer.headers.get('x-elastic-product');
    if (product) out['x-elastic-product'] = product;
    reply(answer.status, out, text);
  });
}

/** One recorded exchange, as the recording proxy appends it. */
export interface Exchange {
  request: Omit<SeenRequest, 'endpoint'>;
  status: number;
  response: unknown;
}

/**
 * What makes two runs' requests the same request: method, path, query and body with what differs from run to run
 * blanked out (the index prefix each store draws, generation and store ids, times, epoch milliseconds, the lease
 * owner). Everything else must be equal: a request the engine now builds differently is not in the recording.
 */
export function exchangeKey(request: Omit<SeenRequest, 'endpoint'>): string {
  const query = Object.entries(request.query).sort(([a], [b]) => a.localeCompare(b));
  return normalised(JSON.stringify([request.method, decodeURIComponent(request.path), query, request.body ?? null]));
}

/** The index prefix es-target.ts draws for each store (`t-` and 8 hex digits). */
const PREFIX = /\bt-[0-9a-f]{8}\b/g;
function normalised(text: string): string {
  return text
    .replace(PREFIX, '<prefix>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<time>')
    .replace(/\b\d{17}\b/g, '<generation>')
    .replace(/\b1\d{12}\b/g, '<ms>')
    .replace(/\b(live|load)-[0-9a-z<>-]+/g, '$1-<id>')
    .replace(/"owner":"[0-9a-f]+"/g, '"owner":"<owner>"');
}

export interface ReplayCluster extends StandInCluster {
  /** Requests the recording has no (more) answer for: the engine drifted from the recorded run. */
  misses: string[];
  /** Recorded exchanges not asked for (yet). */
  remaining(): number;
}

/**
 * Replays a recording (the recording proxy's NDJSON) with no cluster behind: every request is checked like the
 * stand-in's, then answered with the recorded answer of the same request (exchangeKey), in recorded order per
 * request, with the recorded index prefix turned into the one this run uses. A request the recording lacks is a
 * miss: answered 500 and kept in `misses`, so the run fails naming it. This is how recordings of a real cluster
 * (docs/operations.md, "Verification command") are kept as tests without the cluster.
 */
export async function startReplayCluster(file: string): Promise<ReplayCluster> {
  const queues = new Map<string, Exchange[]>();
  let total = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const exchange = JSON.parse(line) as Exchange;
    const key = exchangeKey(exchange.request);
    queues.set(key, [...(queues.get(key) ?? []), exchange]);
    total++;
  }
  let served = 0;
  const misses: string[] = [];
  /** The prefix of the store this run is on (a bulk's path names none): answers carry it instead of the recorded one. */
  let prefix: string | undefined;
  const cluster = await startCheckingServer(async (seen, _request, reply) => {
    const { endpoint: _endpoint, ...request } = seen;
    prefix = `${decodeURIComponent(seen.path)} ${JSON.stringify(seen.body ?? null)}`.match(PREFIX)?.[0] ?? prefix;
    const exchange = queues.get(exchangeKey(request))?.shift();
    const headers = { 'content-type': 'application/vnd.elasticsearch+json; compatible-with=9', 'x-elastic-product': 'Elasticsearch' };
    if (!exchange) {
      misses.push(`${seen.method} ${seen.path} ${JSON.stringify(seen.body ?? null).slice(0, 300)}`);
      reply(500, headers, JSON.stringify({ error: { type: 'replay_miss', reason: 'not in the recording' }, status: 500 }));
      return;
    }
    served++;
    const text = exchange.response === null ? '' : JSON.stringify(exchange.response);
    reply(exchange.status, headers, prefix ? text.replace(PREFIX, prefix) : text);
  });
  return { ...cluster, misses, remaining: () => total - served };
}
