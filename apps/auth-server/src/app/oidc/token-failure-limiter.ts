import { Inject, Injectable } from '@nestjs/common';
import { InjectRedis, type Redis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../../config';
import { countHit, readCounts } from './fixed-window';

export type TokenAttemptVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Failed client authentication at the token endpoint, counted per client id and per client IP in
 * fixed windows: past either limit the endpoint answers 429 until the window ends, even with the
 * right secret, so a secret cannot be guessed at network speed from one address or across many.
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
    const over = counts.filter((count, i) => count.count >= (counters[i]?.limit ?? Infinity));
    if (over.length === 0) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(...over.map((count) => count.secondsLeft)) };
  }

  async failed(clientId: string | undefined, ip: string): Promise<void> {
    await Promise.all(this.counters(clientId, ip).map((c) => countHit(this.redis, c.name, this.config.TOKEN_FAILURE_WINDOW_SECONDS)));
  }

  private counters(clientId: string | undefined, ip: string) {
    return [
      { name: `ratelimit:token-failures:ip:${ip}`, limit: this.config.TOKEN_FAILURES_PER_IP },
      ...(clientId ? [{ name: `ratelimit:token-failures:client:${clientId}`, limit: this.config.TOKEN_FAILURES_PER_CLIENT }] : []),
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
