import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Caller } from './caller';

export interface VerifiedTokenCacheOptions {
  /** Most tokens remembered; the least recently used go first. 0 turns the cache off. */
  readonly maxEntries: number;
  /** Longest a verified token is remembered, whatever its `exp`. */
  readonly maxAgeMs: number;
}

/**
 * The callers of access tokens already verified, so an agent's next call with the same token skips the
 * signature check (ES256 verification is the largest per-request cost the gateway's profile shows). Keyed by
 * a SHA-256 of the token: the cache never holds a token that could be replayed. An entry never outlives the
 * token's `exp` (checked on every read, not only by the LRU's timer) nor `maxAgeMs`.
 */
export class VerifiedTokenCache {
  /** Per token hash: its caller and the instant (ms) the entry stops being trusted. */
  private readonly entries: LRUCache<string, { readonly caller: Caller; readonly until: number }> | undefined;

  constructor(
    private readonly options: VerifiedTokenCacheOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.entries = options.maxEntries > 0 ? new LRUCache({ max: options.maxEntries }) : undefined;
  }

  get(token: string): Caller | undefined {
    const key = keyOf(token);
    const entry = this.entries?.get(key);
    if (!entry) return undefined;
    if (this.now() >= entry.until) {
      this.entries?.delete(key);
      return undefined;
    }
    return entry.caller;
  }

  remember(token: string, caller: Caller): void {
    const now = this.now();
    const until = Math.min(caller.expiresAt * 1000, now + this.options.maxAgeMs);
    if (this.entries && until > now) this.entries.set(keyOf(token), { caller, until });
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }
}

/** One-shot `hash`: no Hash object per request. */
const keyOf = (token: string) => hash('sha256', token, 'base64url');
