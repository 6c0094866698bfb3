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

/**
 * Lua, one attempt counted before its password is checked, so a parallel burst cannot pass between a check and a
 * count: refuses while the address has LOGIN_FAILURES_PER_IP attempts in the window or the (email, address) pair waits
 * out a backoff; otherwise counts the attempt for both and, past LOGIN_MAX_FAILURES for the pair, starts the next
 * backoff (2, 4, 8 … s). KEYS: per address, pair, backoff. ARGV: window, per-address limit, max failures.
 * Returns {1} when admitted, {0, limit, seconds} when refused.
 */
const ATTEMPT = `
local backoff = redis.call('PTTL', KEYS[3])
if backoff > 0 then return {0, 'login_failures_per_email_ip', math.ceil(backoff / 1000)} end
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[2]) then
  return {0, 'login_failures_per_ip', math.max(1, redis.call('TTL', KEYS[1]))}
end
local window = tonumber(ARGV[1])
if redis.call('INCR', KEYS[1]) == 1 then redis.call('EXPIRE', KEYS[1], window) end
local pair = redis.call('INCR', KEYS[2])
if pair == 1 then redis.call('EXPIRE', KEYS[2], window) end
local beyond = pair - tonumber(ARGV[3])
if beyond >= 0 then redis.call('SET', KEYS[3], '1', 'EX', math.min(window, 2 ^ (beyond + 1))) end
return {1}`;

/** Lua: a right password takes its attempt back from the address, and clears the pair. KEYS: per address, pair, backoff. */
const SUCCEEDED = `
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
return redis.call('DEL', KEYS[2], KEYS[3])`;

/**
 * Failed owner sign-ins, counted in Redis so every replica shares them, per (email, client address) and per
 * client address (an IPv4 address or an IPv6 /64), never per email alone: a stranger who fails an owner's password
 * slows only his own address, and the owner signs in from hers. Every attempt is counted before its password is
 * hashed (`attempt`), and a right one takes its count back (`succeeded`): so a parallel burst is held to the limits
 * as a sequence would be. After LOGIN_MAX_FAILURES attempts for an email from one address, each further try waits
 * 2 s, then twice as long after every failure, up to LOGIN_LOCK_SECONDS; LOGIN_FAILURES_PER_IP attempts from one
 * address (any emails) pause it for the window (password spraying).
 */
@Injectable()
export class LoginThrottle {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    // Absent in the create-owner command, which never signs anyone in.
    @Optional() private readonly metrics?: AppMetrics,
  ) {}

  /** Counts one sign-in attempt; throws LoginThrottledError when this address may not try now. */
  async attempt(email: string, ip: string): Promise<void> {
    const host = hostOf(ip);
    const verdict = (await this.redis.eval(
      ATTEMPT,
      3,
      perAddressKey(host),
      pairKey(email, host),
      backoffKey(email, host),
      this.config.LOGIN_LOCK_SECONDS,
      this.config.LOGIN_FAILURES_PER_IP,
      this.config.LOGIN_MAX_FAILURES,
    )) as [1] | [0, string, number];
    if (verdict[0] === 0) this.refuse(verdict[1], verdict[2]);
  }

  /** The attempt had the right password: it was no failure. */
  async succeeded(email: string, ip: string): Promise<void> {
    const host = hostOf(ip);
    await this.redis.eval(SUCCEEDED, 3, perAddressKey(host), pairKey(email, host), backoffKey(email, host));
  }

  private refuse(limit: string, retryAfterSeconds: number): never {
    this.metrics?.recordLimitRefusal(limit);
    throw new LoginThrottledError(retryAfterSeconds);
  }
}
