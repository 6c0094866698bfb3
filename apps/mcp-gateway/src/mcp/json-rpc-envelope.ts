import { ClientRequestSchema } from '@modelcontextprotocol/core';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';

export type JsonRpcId = string | number;

/** A JSON-RPC error the gateway answers itself, before the MCP server sees the message. */
export interface EnvelopeRejection {
  /** 400 when no request could be read (nothing to answer in a stream); 200 for a request with bad params. */
  readonly status: 200 | 400;
  readonly id: JsonRpcId | null;
  readonly code: ProtocolErrorCode.InvalidRequest | ProtocolErrorCode.InvalidParams | ProtocolErrorCode.ParseError;
  readonly message: string;
}

export type EnvelopeVerdict = { ok: true } | { ok: false; rejection: EnvelopeRejection };

/** The SDK's own params schema of every client request method: one source for what a method accepts. */
const PARAMS_SCHEMAS = new Map(ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema]));

/**
 * The methods whose params the gateway checks on a 2026-07-28 request: those its server answers. Any other method is
 * the SDK's to answer on that revision, including the ones 2026-07-28 removed (`initialize`, `ping`, ...), which must
 * be a 404 with -32601 rather than a complaint about their params.
 */
const MODERN_CHECKED_METHODS = new Set(['tools/list', 'tools/call', 'resources/list', 'resources/templates/list', 'resources/read']);

/** The protocol era of a request, as the SDK's isLegacyRequest classifies it. */
export type ProtocolEra = 'legacy' | 'modern';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const invalidRequest = (message: string, id: JsonRpcId | null = null): EnvelopeVerdict => ({
  ok: false,
  rejection: { status: 400, id, code: ProtocolErrorCode.InvalidRequest, message },
});

/**
 * Checks a POSTed JSON-RPC message before the SDK runs it. The SDK answers a malformed envelope with
 * -32700 and bad params with a validator dump; callers need -32600 / -32602 naming the field.
 * Batches are refused whole (they are not part of MCP since 2025-06-18), so no batch is ever half-run.
 */
export function checkEnvelope(body: unknown, era: ProtocolEra = 'legacy'): EnvelopeVerdict {
  if (Array.isArray(body)) {
    return invalidRequest(
      body.length === 0
        ? 'an empty batch is not a request: send one JSON-RPC request object per POST'
        : 'JSON-RPC batches are not part of MCP (since 2025-06-18): send one request per POST; nothing in this batch was run',
    );
  }
  if (!isPlainObject(body)) return invalidRequest('the body must be one JSON-RPC 2.0 request object');
  if (body['jsonrpc'] !== '2.0') return invalidRequest('jsonrpc: must be "2.0"');
  const hasId = 'id' in body;
  const id = body['id'];
  if (hasId && typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) {
    return invalidRequest('id: must be a string or a number');
  }
  const requestId = hasId ? (id as JsonRpcId) : null;
  if (!('method' in body)) {
    // A client's answer to a server request carries result or error instead of a method.
    return hasId && ('result' in body || 'error' in body) ? { ok: true } : invalidRequest('method: required', requestId);
  }
  if (typeof body['method'] !== 'string') return invalidRequest('method: must be a string', requestId);
  if ('params' in body && !isPlainObject(body['params'])) {
    const message = 'params: must be an object';
    return hasId ? { ok: false, rejection: { status: 200, id: requestId, code: ProtocolErrorCode.InvalidParams, message } } : invalidRequest(message);
  }
  if (era === 'modern' && !MODERN_CHECKED_METHODS.has(body['method'])) return { ok: true };
  const schema = PARAMS_SCHEMAS.get(body['method']);
  if (!hasId || !schema) return { ok: true }; // notifications and unknown methods: the SDK answers them
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true };
  const message = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'params'}: ${plainMessage(issue.message)}`).join('; ');
  return { ok: false, rejection: { status: 200, id: requestId, code: ProtocolErrorCode.InvalidParams, message } };
}

/** "Invalid input: expected record, received array" -> "expected an object, received array". */
function plainMessage(message: string): string {
  return message
    .replace(/^Invalid input: /, '')
    .replace(/expected (record|object)/, 'expected an object');
}

/** The body parser could not read the POST: JSON that is not an object (strict parser) is -32600, anything else -32700. */
export function unparsableBody(raw: string | undefined): EnvelopeRejection {
  let parsed: unknown;
  try {
    parsed = raw === undefined ? undefined : JSON.parse(raw);
  } catch {
    return { status: 400, id: null, code: ProtocolErrorCode.ParseError, message: 'the body is not valid JSON' };
  }
  const verdict = checkEnvelope(parsed);
  return verdict.ok
    ? { status: 400, id: null, code: ProtocolErrorCode.ParseError, message: 'the body is not valid JSON' }
    : verdict.rejection;
}

export const jsonRpcError = (rejection: EnvelopeRejection) => ({
  jsonrpc: '2.0' as const,
  id: rejection.id,
  error: { code: rejection.code, message: rejection.message },
});
