import { type Redis } from '@adintel/redis';

interface BucketTake {
  readonly allowed: boolean;
  /** Whole tokens left after this take. */
  readonly remaining: number;
  /** Milliseconds until the next token, when refused. */
  readonly retryAfterMs: number;
}

/**
 * Refill, check and take in one script, timed by the Redis clock, so every gateway replica
 * shares one bucket per account and concurrent requests can never take the same token twice.
 */
const TAKE_SCRIPT = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or capacity
local at = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * per_ms)
local allowed = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  wait = math.ceil((1 - tokens) / per_ms)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / per_ms) + 1000)
return {allowed, math.floor(tokens), wait}
`;

type WithTake = Redis & { bucketTake(key: string, capacity: number, perMs: number): Promise<[number, number, number]> };

export class TokenBucketRepository {
  private readonly redis: WithTake;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
  ) {
    redis.defineCommand('bucketTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.redis = redis as WithTake;
  }

  /** `bucket` names one of the account's buckets ('' the paid one, kept under its old key). */
  async take(account: string, capacity: number, refillPerMinute: number, bucket = ''): Promise<BucketTake> {
    const [allowed, remaining, wait] = await this.redis.bucketTake(
      `${this.keyPrefix}ratelimit:${bucket}${account}`,
      capacity,
      refillPerMinute / 60_000,
    );
    return { allowed: allowed === 1, remaining, retryAfterMs: wait };
  }
}
