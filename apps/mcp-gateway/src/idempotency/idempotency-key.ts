/** REST (and /mcp) request header naming a caller's idempotency key, the convention API users know. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** The same key inside an MCP `tools/call`: `params._meta.idempotency_key`, for clients that cannot set headers per call. */
export const MCP_IDEMPOTENCY_META = 'idempotency_key';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export type KeyCheck = { ok: true; key?: string } | { ok: false; message: string };

/** A key is 1-255 visible ASCII characters; absent means "no idempotency: every call runs and is charged". */
export function checkIdempotencyKey(value: unknown): KeyCheck {
  if (value === undefined) return { ok: true };
  if (typeof value === 'string' && KEY_PATTERN.test(value)) return { ok: true, key: value };
  return { ok: false, message: 'must be 1 to 255 visible ASCII characters (a UUID is a good key)' };
}
