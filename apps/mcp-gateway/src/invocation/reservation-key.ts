import { randomBase64url } from '@adintel/observability';

/**
 * The key metering holds a reservation under, and the `request_id` of its ledger entry. It starts
 * with the HTTP request id so the entry can be traced to the request (receipts name it). The rest is
 * the digest of the caller's idempotency key (a retry with the same key finds the same reservation),
 * or else random: reusing X-Request-Id never makes two calls share one charge.
 */
export function reservationKey(requestId: string, idempotencyDigest?: string): string {
  return `${requestId.slice(0, 96)}.${idempotencyDigest ?? randomBase64url(16)}`;
}
