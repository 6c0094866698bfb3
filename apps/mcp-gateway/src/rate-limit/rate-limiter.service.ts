import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { ServiceError } from '@adintel/contracts';
import type { Admission } from '@adintel/tool-catalogue';
import type { TokenBucketRepository } from './token-bucket.repository';
import type { ScanSlotsRepository } from './scan-slots.repository';

interface RateLimit {
  readonly perMinute: number;
  readonly burst: number;
}

export interface RateLimits {
  /** Paid tools and priced operations. */
  readonly paid: RateLimit;
  /** Free data tools (count_ads, the name searches): a larger bucket of their own. */
  readonly freeData: RateLimit;
  /** Scanning tools an account may have running at once, and how long a slot lives at most. */
  readonly scans: { readonly inFlight: number; readonly holdMs: number };
}

/** Per-account admission: token buckets by the tool's admission class, and a bound on scans in flight. */
export class RateLimiterService {
  private readonly logger = new Logger('RateLimiter');

  constructor(
    private readonly buckets: TokenBucketRepository,
    private readonly scanSlots: ScanSlotsRepository,
    private readonly limits: RateLimits,
  ) {}

  /** Throws `rate_limited` (429 + Retry-After) when the account has no call of this class left right now. */
  async consume(account: string, admission: Admission = 'paid'): Promise<void> {
    if (admission === 'unlimited') return;
    const limit = admission === 'paid' ? this.limits.paid : this.limits.freeData;
    const take = await this.guarded(() => this.buckets.take(account, limit.burst, limit.perMinute, admission === 'paid' ? '' : 'free:'));
    if (!take.allowed) {
      const what = admission === 'paid' ? 'paid calls' : 'free calls (the free data tools count_ads and the name searches, and media reads)';
      const seconds = retrySeconds(take.retryAfterMs);
      throw ServiceError.of('rate_limited', `at most ${limit.perMinute} ${what} per minute (bursts of ${limit.burst}); retry in ${seconds} s`, {
        retry_after_seconds: seconds,
      });
    }
  }

  /**
   * Runs a scanning call in one of the account's slots, or throws `rate_limited` when all are taken. A call cut off by
   * a timeout keeps its slot until the slot lapses: query-api is still scanning for it, so it still counts.
   */
  async scanning<R>(account: string, run: () => Promise<R>): Promise<R> {
    const id = randomUUID();
    const { inFlight, holdMs } = this.limits.scans;
    const take = await this.guarded(() => this.scanSlots.take(account, inFlight, holdMs, id));
    if (!take.taken) {
      const seconds = retrySeconds(take.retryAfterMs);
      throw ServiceError.of(
        'rate_limited',
        `at most ${inFlight} scanning calls (get_ads_breakdown, get_trends) running at once per account; retry in ${seconds} s`,
        { retry_after_seconds: seconds },
      );
    }
    let timedOut = false;
    try {
      return await run();
    } catch (error) {
      timedOut = error instanceof ServiceError && error.code === 'timeout';
      throw error;
    } finally {
      if (!timedOut) await this.scanSlots.free(account, id).catch((error: Error) => this.logger.warn(`scan slot not freed (it lapses): ${error.message}`));
    }
  }

  private async guarded<T>(take: () => Promise<T>): Promise<T> {
    try {
      return await take();
    } catch (error) {
      this.logger.warn(`rate limiter store unreachable: ${(error as Error).message}`);
      throw ServiceError.of('unavailable', 'the gateway cannot reach its rate-limit store; retry shortly', { retry_after_seconds: 5 });
    }
  }
}

const retrySeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
