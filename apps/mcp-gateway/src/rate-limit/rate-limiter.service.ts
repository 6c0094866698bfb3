import { Logger } from '@nestjs/common';
import { ServiceError } from '@adintel/contracts';
import type { TokenBucketRepository } from './token-bucket.repository';

interface RateLimit {
  readonly perMinute: number;
  readonly burst: number;
}

/** A token bucket per account on paid tools: `burst` calls at once, refilled at `perMinute`. */
export class RateLimiterService {
  private readonly logger = new Logger('RateLimiter');

  constructor(
    private readonly buckets: TokenBucketRepository,
    private readonly limit: RateLimit,
  ) {}

  /** Throws `rate_limited` (429 + Retry-After) when the account has no call left right now. */
  async consume(account: string): Promise<void> {
    let take;
    try {
      take = await this.buckets.take(account, this.limit.burst, this.limit.perMinute);
    } catch (error) {
      this.logger.warn(`rate limiter store unreachable: ${(error as Error).message}`);
      throw ServiceError.of('unavailable', 'the gateway cannot reach its rate-limit store; retry shortly', { retry_after_seconds: 5 });
    }
    if (!take.allowed) {
      const seconds = Math.max(1, Math.ceil(take.retryAfterMs / 1000));
      throw ServiceError.of(
        'rate_limited',
        `at most ${this.limit.perMinute} paid calls per minute (bursts of ${this.limit.burst}); retry in ${seconds} s. ` +
          'Free tools such as get_usage and count_ads are not limited',
        { retry_after_seconds: seconds },
      );
    }
  }
}
