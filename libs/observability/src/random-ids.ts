import { randomFillSync } from 'node:crypto';

/**
 * Random ids drawn from a pool refilled 4 KB at a time: one `randomFillSync` per a few hundred ids instead of one
 * call into the CSPRNG per id, which cost ~13 us each in the gateway's CPU profile (traceparents, reservation
 * keys). The bytes stay cryptographically random; each is handed out once.
 */
const pool = Buffer.alloc(4_096);
let used = pool.length;

function take(bytes: number): [start: number, end: number] {
  if (bytes > pool.length) throw new RangeError(`at most ${pool.length} random bytes at a time`);
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += bytes;
  return [used - bytes, used];
}

/** `bytes` random bytes as lowercase hex (2 characters per byte). */
export function randomHex(bytes: number): string {
  return pool.toString('hex', ...take(bytes));
}

/** `bytes` random bytes as base64url without padding (16 bytes: 22 characters). */
export function randomBase64url(bytes: number): string {
  return pool.toString('base64url', ...take(bytes));
}
