import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

/**
 * CSRF tokens for our forms: an HMAC of what the form acts on (an interaction uid, an account session),
 * keyed with the cookie keys. Forged or replayed-elsewhere forms fail; key rotation keeps old forms valid.
 */
export class FormTokens {
  constructor(private readonly keys: readonly string[]) {}

  issue(purpose: string): string {
    return this.sign(this.keys[0] ?? '', purpose);
  }

  verify(purpose: string, token: unknown): boolean {
    if (typeof token !== 'string' || token.length === 0 || token.length > 128) return false;
    const given = Buffer.from(token);
    return this.keys.some((key) => {
      const expected = Buffer.from(this.sign(key, purpose));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  }

  private sign(key: string, purpose: string) {
    return createHmac('sha256', key).update(purpose).digest('base64url');
  }
}

/** A browser form post from another site carries its Origin; ours carries the public origin (or none for non-browsers). */
export function fromOurOrigin(req: Request, publicBaseUrl: string): boolean {
  const origin = req.get('origin');
  if (origin === undefined) return true;
  return origin === new URL(publicBaseUrl).origin;
}
