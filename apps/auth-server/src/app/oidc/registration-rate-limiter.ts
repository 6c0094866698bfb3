import { Inject, Injectable } from '@nestjs/common';
import { type Redis, InjectRedis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../../config';
import { countHit } from './fixed-window';

const WINDOW_SECONDS = 3600;

type RateVerdict = { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number };

/** Registrations per client IP in fixed one-hour windows, counted in Redis so every replica shares the count. */
@Injectable()
export class RegistrationRateLimiter {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async hit(ip: string, now = Date.now()): Promise<RateVerdict> {
    const { count, secondsLeft } = await countHit(this.redis, `ratelimit:register:${ip}`, WINDOW_SECONDS, now);
    const limit = this.config.REGISTRATION_LIMIT_PER_HOUR;
    if (count <= limit) return { allowed: true, remaining: limit - count };
    return { allowed: false, retryAfterSeconds: secondsLeft };
  }
}
