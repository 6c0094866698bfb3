import type { Redis } from '@adintel/redis';

export type PassClaim = 'claimed' | 'paid' | 'busy';

/** Drops a claim only if it is still ours (a paid pass, or another request's claim, stays). */
const DROP_OWN_CLAIM = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * Redis queries of the media day passes: one key per caller, file and UTC day, holding `paid` once the caller paid
 * for the file that day, or a request's claim while it is paying (so two first ranges at once do not both pay).
 */
export class MediaPassRepository {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {}

  /** Claims the pass for `token` unless someone holds it (atomic: SET NX GET). */
  async claim(key: string, token: string, ttlSeconds: number): Promise<PassClaim> {
    const previous = await this.redis.set(this.storageKey(key), token, 'EX', ttlSeconds, 'NX', 'GET');
    if (previous === null) return 'claimed';
    return previous === PAID ? 'paid' : 'busy';
  }

  /** Whether the caller paid for the file today (not a claim still paying). */
  async isPaid(key: string): Promise<boolean> {
    return (await this.redis.get(this.storageKey(key))) === PAID;
  }

  async markPaid(key: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.storageKey(key), PAID, 'EX', ttlSeconds);
  }

  async dropClaim(key: string, token: string): Promise<void> {
    await this.redis.eval(DROP_OWN_CLAIM, 1, this.storageKey(key), token);
  }

  private storageKey(key: string) {
    return `${this.keyPrefix}media-pass:${key}`;
  }
}

const PAID = 'paid';
