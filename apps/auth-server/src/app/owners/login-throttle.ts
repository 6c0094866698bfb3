import { Inject, Injectable } from '@nestjs/common';
import { type Redis, InjectRedis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../../config';

export class LoginThrottledError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`too many failed sign-ins; try again in ${retryAfterSeconds} s`);
  }
}

const failuresKey = (email: string) => `login-failures:${email}`;

/**
 * Failed sign-ins per account email, counted in Redis so every replica shares the count.
 * After LOGIN_MAX_FAILURES failures within LOGIN_LOCK_SECONDS, sign-in for that email waits until the window ends;
 * a success clears the count. Slows password guessing beyond what the scrypt cost alone does.
 */
@Injectable()
export class LoginThrottle {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async assertAllowed(email: string): Promise<void> {
    const [failures, ttl] = await Promise.all([this.redis.get(failuresKey(email)), this.redis.ttl(failuresKey(email))]);
    if (Number(failures ?? 0) >= this.config.LOGIN_MAX_FAILURES) throw new LoginThrottledError(Math.max(1, ttl));
  }

  async recordFailure(email: string): Promise<void> {
    await this.redis.multi().incr(failuresKey(email)).expire(failuresKey(email), this.config.LOGIN_LOCK_SECONDS, 'NX').exec();
  }

  async clear(email: string): Promise<void> {
    await this.redis.del(failuresKey(email));
  }
}
