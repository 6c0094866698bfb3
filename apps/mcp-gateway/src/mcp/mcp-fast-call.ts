import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolRequest,
  type CallToolResult,
  type InboundClassificationOutcome,
} from '@modelcontextprotocol/server';
import { MCP_IDEMPOTENCY_META } from '../idempotency/idempotency-key';
import type { JsonRpcId } from './json-rpc-envelope';
import { SERVER_INFO } from './mcp-tools';

/**
 * The gateway's own answer to a plain `tools/call` (nearly every call an agent makes), on both protocol revisions.
 * The SDK answers one by building a Server and a transport per request, a web Request/Response pair around it,
 * validating the message four more times and the result once more: in the gateway's CPU profile that made an MCP
 * call cost about twice a REST call (docs/performance.md, "MCP on both revisions"). Here the checks the SDK would make
 * are made once, on a narrow shape of request; the result comes from the same McpToolCalls.call() the SDK's handler
 * runs, and is framed exactly as the SDK frames it. A request outside that shape goes to the SDK, which answers it.
 * `apps/mcp-gateway/test/mcp/mcp-fast-call.spec.ts` sends the same requests to the gateway with and without this
 * path and compares the answers; MCP_FAST_PATH=false turns it off.
 */

/** The one modern revision the fast path serves; a request claiming any other revision goes to the SDK. */
export const FAST_MODERN_REVISION = '2026-07-28';

/** What the SDK's classification of a request (`classifyInboundRequest`) says. */
export type Classification = InboundClassificationOutcome;

/** A tools/call the gateway answers itself. */
export interface FastToolCall {
  readonly id: JsonRpcId;
  readonly params: CallToolRequest['params'];
  readonly modern: boolean;
}

/** The parts of an HTTP request the decision reads (Express's request has them). */
export interface FastCallRequest {
  readonly url: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: unknown;
}

const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAMS_MEMBERS = new Set(['name', 'arguments', '_meta']);
/** `_meta` keys the handler reads (the idempotency key) or the SDK only lifts and checks (the envelope). */
const LEGACY_META_KEYS = new Set([MCP_IDEMPOTENCY_META]);
const MODERN_META_KEYS = new Set([
  MCP_IDEMPOTENCY_META,
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
]);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const onlyMembers = (value: Record<string, unknown>, allowed: Set<string>) => Object.keys(value).every((key) => allowed.has(key));
const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

/**
 * The tools/call the gateway may answer itself, or undefined for the SDK. Runs after the guards, checkEnvelope and
 * carryIdempotencyKey accepted the message, for a JSON (not SSE) answer. It takes only a request the SDK would hand
 * to the tools/call handler unchanged:
 * - one request (an id, a string or a safe integer as the SDK's message schema wants), no member beyond a
 *   request's, params with `name`, `arguments` (an object) and `_meta` only, and in `_meta` only the idempotency
 *   key and, on 2026-07-28, the envelope (no progress token, no task, no multi-round-trip state);
 * - 2025-era: the SDK classified it as such, an MCP-Protocol-Version header (if any) the SDK's transport supports,
 *   and a Host header and path its Node adapter reads without a 400 (mcp-2026.spec.ts sends Hosts it refuses);
 * - 2026-07-28: the SDK classified it as a request of that revision (which checked the envelope, and the version and
 *   method headers against the body when present), and the standard headers the SDK then requires are present and
 *   agree with the body: MCP-Protocol-Version, Mcp-Method and Mcp-Name equal to `params.name` (a Base64-encoded
 *   Mcp-Name goes to the SDK, which decodes it).
 */
export function fastToolCall(req: FastCallRequest, classification: Classification): FastToolCall | undefined {
  const body = req.body;
  if (!isPlainObject(body) || body['method'] !== 'tools/call' || !onlyMembers(body, REQUEST_MEMBERS)) return undefined;
  const id = body['id'];
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  const params = body['params'];
  if (!isPlainObject(params) || !onlyMembers(params, PARAMS_MEMBERS) || typeof params['name'] !== 'string') return undefined;
  if (params['arguments'] !== undefined && !isPlainObject(params['arguments'])) return undefined;
  const meta = params['_meta'];
  if (meta !== undefined && !isPlainObject(meta)) return undefined;

  const call = { id: id as JsonRpcId, params: params as CallToolRequest['params'] };
  if (classification.kind === 'legacy') {
    if (meta && !onlyMembers(meta, LEGACY_META_KEYS)) return undefined;
    const version = header(req.headers['mcp-protocol-version']);
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
    if (!nodeAdapterReads(header(req.headers['host']), req.url)) return undefined;
    return { ...call, modern: false };
  }
  if (classification.kind !== 'modern' || classification.messageKind !== 'request') return undefined;
  if (classification.classification.revision !== FAST_MODERN_REVISION) return undefined;
  if (meta && !onlyMembers(meta, MODERN_META_KEYS)) return undefined;
  // classifyInboundRequest compared these two with the body when present; the SDK then insists on their presence.
  if (req.headers['mcp-protocol-version'] === undefined || req.headers['mcp-method'] === undefined) return undefined;
  const name = header(req.headers['mcp-name']);
  if (name === undefined || name.startsWith('=?') || stripOws(name) !== params['name']) return undefined;
  return { ...call, modern: true };
}

/**
 * Whether the SDK's Node adapter of the 2025-era transport builds its URL from this Host and path without refusing
 * the request with a 400: a plain lower-case host (and port), or one the URL parser reads back to the same name,
 * and a path of plain characters without dot segments. Anything else goes to the SDK, which answers it.
 */
function nodeAdapterReads(host: string | undefined, path: string): boolean {
  if (!host || !PLAIN_PATH.test(path) || DOT_SEGMENT.test(path)) return false;
  if (PLAIN_HOST.test(host)) return true;
  try {
    const { hostname } = new URL(`http://${host}${path}`);
    return hostname.length === host.length || hostname === (host.includes(':') ? host.replace(/:\d+$/, '') : host).toLowerCase();
  } catch {
    return false;
  }
}
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;
const PLAIN_PATH = /^\/[!#$&-;=?-[\]_a-z~]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;

/** RFC 9110 optional whitespace around a field value, which the SDK strips before comparing. */
const stripOws = (value: string) => value.replace(/^[\t ]+|[\t ]+$/g, '');

/**
 * The JSON-RPC answer the SDK writes for a tools/call result: on 2026-07-28 the result gains `resultType: "complete"`
 * and the server's identity in `_meta` (tool results carry no cache hints); a 2025-era result goes out as it is.
 */
export function fastCallAnswer(call: FastToolCall, result: CallToolResult): string {
  const encoded = call.modern ? stampModern(result) : result;
  return JSON.stringify({ result: encoded, jsonrpc: '2.0', id: call.id });
}

function stampModern(result: CallToolResult): CallToolResult {
  const stamped = result['resultType'] === undefined ? { ...result, resultType: 'complete' } : result;
  const meta = stamped._meta;
  if (meta === undefined) return { ...stamped, _meta: { [SERVER_INFO_META_KEY]: SERVER_INFO } };
  if (!isPlainObject(meta) || meta[SERVER_INFO_META_KEY] !== undefined) return stamped;
  return { ...stamped, _meta: { ...meta, [SERVER_INFO_META_KEY]: SERVER_INFO } };
}

/**
 * The JSON-RPC error the SDK writes when the tools/call handler throws (an unknown tool is a ProtocolError -32602):
 * the error's own code when it is a safe integer (-32002 becomes -32602 on both revisions), else -32603.
 */
export function fastCallError(call: FastToolCall, error: unknown): string {
  const thrown = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  const code = Number.isSafeInteger(thrown.code) ? (thrown.code as number) : ProtocolErrorCode.InternalError;
  return JSON.stringify({
    jsonrpc: '2.0',
    id: call.id,
    error: {
      code: code === -32002 ? ProtocolErrorCode.InvalidParams : code,
      message: thrown.message ?? 'Internal error',
      ...(thrown.data !== undefined && { data: thrown.data }),
    },
  });
}
