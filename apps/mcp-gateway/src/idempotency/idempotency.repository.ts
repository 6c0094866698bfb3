import type { Redis } from '@adintel/redis';

/** What is kept under a caller's key: a running marker, then the finished call's answer. */
export type IdempotencyRecord =
  | { readonly state: 'running'; readonly fingerprint: string }
  | { readonly state: 'done'; readonly fingerprint: string; readonly result: unknown; readonly charged: number | 'pending' };

/** Redis queries of the idempotency store; one key per caller and idempotency key. */
export class IdempotencyRepository {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {}

  /** Writes `record` unless the key exists; returns what was there (atomic: SET NX GET). */
  async claim(key: string, record: IdempotencyRecord, ttlSeconds: number): Promise<IdempotencyRecord | undefined> {
    const previous = await this.redis.set(this.storageKey(key), JSON.stringify(record), 'EX', ttlSeconds, 'NX', 'GET');
    return previous === null ? undefined : (JSON.parse(previous) as IdempotencyRecord);
  }

  async store(key: string, record: IdempotencyRecord, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.storageKey(key), JSON.stringify(record), 'EX', ttlSeconds);
  }

  async forget(key: string): Promise<void> {
    await this.redis.del(this.storageKey(key));
  }

  private storageKey(key: string) {
    return `${this.keyPrefix}idempotency:${key}`;
  }
}
