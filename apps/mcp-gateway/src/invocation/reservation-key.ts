import { createHash } from 'node:crypto';
import { canonicalJson } from '@adintel/contracts';

/**
 * The key metering holds a reservation under. It starts with the HTTP request id, so a retried
 * delivery of the same request (same X-Request-Id, same call) finds its reservation and is never
 * charged twice, and the ledger entry can be traced to the request. The digest of caller, tool,
 * arguments and JSON-RPC id keeps two different calls apart even when they share a request id
 * (an MCP batch, or a client that reuses its ids), and keeps one caller's ids from touching another's.
 */
export function reservationKey(requestId: string, call: { caller: string; tool: string; args: unknown; callId?: string | number }): string {
  const digest = createHash('sha256')
    .update(canonicalJson([call.caller, call.tool, call.args, call.callId ?? null]))
    .digest('base64url')
    .slice(0, 22);
  return `${requestId.slice(0, 96)}.${digest}`;
}

