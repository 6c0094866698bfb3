import { Inject, Injectable } from '@nestjs/common';
import { type Redis, InjectRedis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../../config';
import { networkOf } from './client-network';
import { currentWindow } from './fixed-window';

const HOUR = 3600;
const DAY = 24 * HOUR;

/** Which limit refused a registration: the label of `adintel_auth_limit_refusals_total`. */
export type RegistrationLimit = 'registrations_per_network' | 'trials_per_network' | 'trials_global';

export type RegistrationVerdict =
  | { allowed: true; admitted: Admission }
  | { allowed: false; limit: RegistrationLimit; retryAfterSeconds: number };

/** The counters one admitted registration added to, so a registration that then fails can give them back. */
export interface Admission {
  readonly keys: readonly string[];
}

/**
 * Adds 1 to every counter (KEYS) if each stays within its limit, else to none.
 * ARGV: per key, its limit and its window in seconds. -> 0 when counted, else the 1-based index of the first full counter.
 */
const ADMIT = `
for i = 1, #KEYS do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  if count >= tonumber(ARGV[2 * i - 1]) then return i end
end
for i = 1, #KEYS do
  redis.call('INCR', KEYS[i])
  redis.call('EXPIRE', KEYS[i], ARGV[2 * i], 'NX')
end
return 0
`;

/**
 * Limits on registrations, counted in Redis so every replica shares them, per client network (an IPv4 /24 or an
 * IPv6 /56, see client-network.ts) rather than per address, which a client rotates for free:
 * - registrations per network per hour (every registration);
 * - trials per network per day and trials in total per hour (a registration that may use client_credentials is an
 *   agent, and every agent gets a trial from metering): the global one is the ceiling on free tokens handed out,
 *   whoever asks, for when the per-network limits are evaded with many networks.
 * Fixed windows; a refused registration adds to no counter.
 */
@Injectable()
export class RegistrationRateLimiter {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async admit(ip: string, grantsTrial: boolean, now = Date.now()): Promise<RegistrationVerdict> {
    const network = networkOf(ip);
    const counters: { name: string; limit: number; windowSeconds: number; label: RegistrationLimit }[] = [
      { name: `ratelimit:register:${network}`, limit: this.config.REGISTRATION_LIMIT_PER_HOUR, windowSeconds: HOUR, label: 'registrations_per_network' },
      ...(grantsTrial
        ? [
            { name: `ratelimit:trials:${network}`, limit: this.config.TRIALS_PER_NETWORK_PER_DAY, windowSeconds: DAY, label: 'trials_per_network' as const },
            { name: 'ratelimit:trials:global', limit: this.config.TRIALS_PER_HOUR, windowSeconds: HOUR, label: 'trials_global' as const },
          ]
        : []),
    ];
    const windows = counters.map((c) => currentWindow(c.name, c.windowSeconds, now));
    const keys = windows.map((w) => w.key);
    const full = Number(await this.redis.eval(ADMIT, keys.length, ...keys, ...counters.flatMap((c) => [c.limit, c.windowSeconds])));
    if (full === 0) return { allowed: true, admitted: { keys } };
    const refused = counters[full - 1];
    const window = windows[full - 1];
    if (!refused || !window) throw new Error(`the admission script named counter ${full} of ${counters.length}`);
    return { allowed: false, limit: refused.label, retryAfterSeconds: window.secondsLeft };
  }

  /** Gives back what an admitted registration counted, when the registration itself failed (a 4xx). */
  async giveBack(admission: Admission): Promise<void> {
    if (admission.keys.length === 0) return;
    const multi = this.redis.multi();
    for (const key of admission.keys) multi.decr(key);
    await multi.exec();
  }
}
