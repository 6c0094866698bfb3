import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { checkIdempotencyKey, IDEMPOTENCY_HEADER, MCP_IDEMPOTENCY_META } from '../idempotency/idempotency-key';
import type { EnvelopeRejection, JsonRpcId } from './json-rpc-envelope';

/**
 * Puts a tools/call's idempotency key in one place, `params._meta.idempotency_key`, whether the client
 * sent it there or as the Idempotency-Key header (one request per POST, so the header names one call).
 * Runs after checkEnvelope, so `params` of a tools/call request is an object.
 */
export function carryIdempotencyKey(body: unknown, header: string | string[] | undefined): EnvelopeRejection | undefined {
  const message = body as { id?: JsonRpcId; method?: unknown; params?: { _meta?: Record<string, unknown> } };
  if (message.method !== 'tools/call' || message.id === undefined || !message.params) return undefined;
  const reject = (text: string): EnvelopeRejection => ({ status: 200, id: message.id ?? null, code: ProtocolErrorCode.InvalidParams, message: text });

  const fromMeta = checkIdempotencyKey(message.params._meta?.[MCP_IDEMPOTENCY_META]);
  if (!fromMeta.ok) return reject(`params._meta.${MCP_IDEMPOTENCY_META}: ${fromMeta.message}`);
  const fromHeader = checkIdempotencyKey(Array.isArray(header) ? header.join(',') : header);
  if (!fromHeader.ok) return reject(`${IDEMPOTENCY_HEADER} header: ${fromHeader.message}`);
  if (fromMeta.key !== undefined && fromHeader.key !== undefined && fromMeta.key !== fromHeader.key) {
    return reject(`params._meta.${MCP_IDEMPOTENCY_META} and the ${IDEMPOTENCY_HEADER} header differ: send one key`);
  }
  if (fromHeader.key !== undefined) message.params._meta = { ...message.params._meta, [MCP_IDEMPOTENCY_META]: fromHeader.key };
  return undefined;
}
