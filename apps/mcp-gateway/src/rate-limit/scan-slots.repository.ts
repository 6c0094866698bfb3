import { type Redis } from '@adintel/redis';

export type SlotTake = { readonly taken: true } | { readonly taken: false; readonly retryAfterMs: number };

/**
 * An account's scans in flight: a sorted set of call ids scored by when each slot lapses (the Redis clock), shared by
 * every gateway replica. Expired slots are dropped on every take, so a slot whose gateway died, or whose call was cut
 * off by a timeout (left to lapse on purpose: query-api is still scanning), frees itself.
 */
const TAKE_SCRIPT = `
local max = tonumber(ARGV[1])
local hold_ms = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= max then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, math.max(1, tonumber(first[2]) - now)}
end
redis.call('ZADD', KEYS[1], now + hold_ms, ARGV[3])
redis.call('PEXPIRE', KEYS[1], hold_ms + 1000)
return {1, 0}
`;

type WithTake = Redis & { scanSlotTake(key: string, max: number, holdMs: number, id: string): Promise<[number, number]> };

export class ScanSlotsRepository {
  private readonly redis: WithTake;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
  ) {
    redis.defineCommand('scanSlotTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.redis = redis as WithTake;
  }

  /** Takes one of the account's `max` slots for at most `holdMs`, or says when the first one lapses. */
  async take(account: string, max: number, holdMs: number, id: string): Promise<SlotTake> {
    const [taken, wait] = await this.redis.scanSlotTake(this.key(account), max, holdMs, id);
    return taken === 1 ? { taken: true } : { taken: false, retryAfterMs: wait };
  }

  async free(account: string, id: string): Promise<void> {
    await this.redis.zrem(this.key(account), id);
  }

  private key(account: string): string {
    return `${this.keyPrefix}scans:${account}`;
  }
}
