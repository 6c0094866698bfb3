import { Injectable } from '@nestjs/common';
import { type Redis, InjectRedis } from '@adintel/redis';
import { MeteringKeys, type PoolKind } from '../redis/keys';

export interface LedgerEntry {
  readonly id: string;
  readonly fields: Record<string, string>;
}

export interface DailyCounts {
  readonly date: string;
  readonly charged: Record<string, string>;
  readonly calls: Record<string, string>;
}

/** Reads the usage ledger (one stream per account) and the per-day aggregates the settle script writes. */
@Injectable()
export class LedgerRepository {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    private readonly keys: MeteringKeys,
  ) {}

  /** Up to `count` events, newest first, strictly older than `beforeId` when given. */
  async newestFirst(kind: PoolKind, accountId: string, count: number, beforeId?: string): Promise<LedgerEntry[]> {
    const entries = await this.redis.xrevrange(this.keys.ledger(kind, accountId), beforeId ? `(${beforeId}` : '+', '-', 'COUNT', count);
    return entries.map(([id, flat]) => ({ id, fields: pairs(flat) }));
  }

  async daily(ownerId: string, dates: readonly string[]): Promise<DailyCounts[]> {
    const pipeline = this.redis.pipeline();
    for (const date of dates) {
      pipeline.hgetall(this.keys.dailyCharged(date, ownerId));
      pipeline.hgetall(this.keys.dailyCalls(date, ownerId));
    }
    const results = (await pipeline.exec()) ?? [];
    return dates.map((date, i) => {
      const [chargedError, charged] = results[2 * i] ?? [];
      const [callsError, calls] = results[2 * i + 1] ?? [];
      if (chargedError || callsError) throw chargedError ?? callsError;
      return { date, charged: (charged ?? {}) as Record<string, string>, calls: (calls ?? {}) as Record<string, string> };
    });
  }
}

function pairs(flat: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]] = flat[i + 1];
  return fields;
}
