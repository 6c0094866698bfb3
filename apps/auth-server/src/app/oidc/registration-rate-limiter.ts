import { Inject, Injectable } from '@nestjs/common';
import { type Redis, InjectRedis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../../config';

const WINDOW_SECONDS = 3600;

export type RateVerdict = { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number };

/** Registrations per client IP in fixed one-hour windows, counted in Redis so every replica shares the count. */
@Injectable()
export class RegistrationRateLimiter {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async hit(ip: string, now = Date.now()): Promise<RateVerdict> {
    const window = Math.floor(now / 1000 / WINDOW_SECONDS);
    const key = `ratelimit:register:${ip}:${window}`;
    const [[, count]] = (await this.redis.multi().incr(key).expire(key, WINDOW_SECONDS, 'NX').exec()) as [[null, number]];
    const limit = this.config.REGISTRATION_LIMIT_PER_HOUR;
    if (count <= limit) return { allowed: true, remaining: limit - count };
    const windowEnds = (window + 1) * WINDOW_SECONDS;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(windowEnds - now / 1000)) };
  }
}
