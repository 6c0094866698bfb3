import { Inject, Injectable } from '@nestjs/common';
import { InjectRedis, type Redis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../../config';
import { hostOf } from './client-network';
import { countHit, readCounts } from './fixed-window';

export type TokenAttemptVerdict = { allowed: true } | { allowed: false; limit: string; retryAfterSeconds: number };

/**
 * Failed client authentications (a wrong client secret at the token and revocation endpoints, or when an owner
 * attaches an agent), counted in fixed windows per (client id, address) and per address, where an address is an
 * IPv4 address or an IPv6 /64 (client-network.ts). Past either limit that address gets 429 until the window ends:
 * a stranger who fails a client's secret pauses only himself, never the client calling from its own address.
 * There is no limit per client id alone, which anyone could trip: a secret is 256 random bits, not guessable
 * across any number of addresses.
 */
@Injectable()
export class TokenFailureLimiter {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async check(clientId: string | undefined, ip: string): Promise<TokenAttemptVerdict> {
    const counters = this.counters(clientId, ip);
    const counts = await readCounts(this.redis, counters.map((c) => c.name), this.config.TOKEN_FAILURE_WINDOW_SECONDS);
    const over = counters.flatMap((counter, i) => ((counts[i]?.count ?? 0) >= counter.limit ? [{ ...counter, secondsLeft: counts[i]?.secondsLeft ?? 1 }] : []));
    const worst = over.sort((a, b) => b.secondsLeft - a.secondsLeft)[0];
    if (!worst) return { allowed: true };
    return { allowed: false, limit: worst.label, retryAfterSeconds: worst.secondsLeft };
  }

  async failed(clientId: string | undefined, ip: string): Promise<void> {
    await Promise.all(this.counters(clientId, ip).map((c) => countHit(this.redis, c.name, this.config.TOKEN_FAILURE_WINDOW_SECONDS)));
  }

  private counters(clientId: string | undefined, ip: string) {
    const host = hostOf(ip);
    return [
      { name: `ratelimit:secret-failures:ip:${host}`, limit: this.config.TOKEN_FAILURES_PER_IP, label: 'secret_failures_per_ip' },
      ...(clientId
        ? [{ name: `ratelimit:secret-failures:client-ip:${host}:${clientId}`, limit: this.config.TOKEN_FAILURES_PER_CLIENT, label: 'secret_failures_per_client_ip' }]
        : []),
    ];
  }
}

/** The client id a token request names: HTTP Basic user (URL-encoded, RFC 6749 2.3.1) or the form's client_id. */
export function clientIdOf(authorization: string | undefined, form: Record<string, unknown> | undefined): string | undefined {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (basic?.[1]) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const user = decoded.slice(0, Math.max(0, decoded.indexOf(':')));
    try {
      return decodeURIComponent(user).slice(0, 256) || undefined;
    } catch {
      return user.slice(0, 256) || undefined;
    }
  }
  const fromForm = form?.['client_id'];
  return typeof fromForm === 'string' && fromForm ? fromForm.slice(0, 256) : undefined;
}
