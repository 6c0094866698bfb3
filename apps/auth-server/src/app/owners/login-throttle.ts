import { Inject, Injectable, Optional } from '@nestjs/common';
import { type Redis, InjectRedis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import { AppMetrics } from '@adintel/observability';
import type { AppConfig } from '../../config';
import { hostOf } from '../oidc/client-network';

export class LoginThrottledError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`too many failed sign-ins; try again in ${retryAfterSeconds} s`);
  }
}

const perAddressKey = (host: string) => `login-failures:ip:${host}`;
const pairKey = (email: string, host: string) => `login-failures:email-ip:${host}:${email}`;
const backoffKey = (email: string, host: string) => `login-backoff:${host}:${email}`;

/** Lua: the count of KEYS[1] after this failure, with the window set on the first one. */
const COUNT = `local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return n`;

/**
 * Failed owner sign-ins, counted in Redis so every replica shares them, per (email, client address) and per
 * client address (an IPv4 address or an IPv6 /64), never per email alone: a stranger who fails an owner's password
 * slows only his own address, and the owner signs in from hers. After LOGIN_MAX_FAILURES failures for an email
 * from one address, each further try waits 2 s, then twice as long after every failure, up to LOGIN_LOCK_SECONDS;
 * LOGIN_FAILURES_PER_IP failures from one address (any emails) pause it for the window (password spraying).
 * A success clears its (email, address) count. Slows guessing beyond what the scrypt cost alone does.
 */
@Injectable()
export class LoginThrottle {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    // Absent in the create-owner command, which never signs anyone in.
    @Optional() private readonly metrics?: AppMetrics,
  ) {}

  async assertAllowed(email: string, ip: string): Promise<void> {
    const host = hostOf(ip);
    const [[, failures], [, addressTtl], [, backoffMs]] = (await this.redis
      .multi()
      .get(perAddressKey(host))
      .ttl(perAddressKey(host))
      .pttl(backoffKey(email, host))
      .exec()) as [[null, string | null], [null, number], [null, number]];
    if (Number(failures ?? 0) >= this.config.LOGIN_FAILURES_PER_IP) this.refuse('login_failures_per_ip', Math.max(1, addressTtl));
    if (backoffMs > 0) this.refuse('login_failures_per_email_ip', Math.ceil(backoffMs / 1000));
  }

  async recordFailure(email: string, ip: string): Promise<void> {
    const host = hostOf(ip);
    const window = this.config.LOGIN_LOCK_SECONDS;
    const [, pairFailures] = await Promise.all([
      this.redis.eval(COUNT, 1, perAddressKey(host), window),
      this.redis.eval(COUNT, 1, pairKey(email, host), window),
    ]);
    const beyond = Number(pairFailures) - this.config.LOGIN_MAX_FAILURES;
    if (beyond >= 0) await this.redis.set(backoffKey(email, host), '1', 'EX', Math.min(window, 2 ** (beyond + 1)));
  }

  async clear(email: string, ip: string): Promise<void> {
    const host = hostOf(ip);
    await this.redis.del(pairKey(email, host), backoffKey(email, host));
  }

  private refuse(limit: string, retryAfterSeconds: number): never {
    this.metrics?.recordLimitRefusal(limit);
    throw new LoginThrottledError(retryAfterSeconds);
  }
}
