import { Injectable } from '@nestjs/common';
import { type Redis, InjectRedis } from '@adintel/redis';
import { MeteringKeys } from '../redis/keys';
import { LuaScript } from '../redis/lua-script';
import { LEDGER_PAGE } from './ledger.scripts';

export interface LedgerEntry {
  readonly id: string;
  readonly fields: Record<string, string>;
}

export interface DailyCounts {
  readonly date: string;
  readonly charged: Record<string, string>;
  readonly calls: Record<string, string>;
}

const scripts = { page: new LuaScript(LEDGER_PAGE) };

/** Reads the usage ledger (one stream per account) and the per-day aggregates the settle script writes. */
@Injectable()
export class LedgerRepository {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    private readonly keys: MeteringKeys,
  ) {}

  /** Up to `count` events of the caller's ledger (an owner's, or an agent's own), newest first, strictly older than `beforeId` when given. */
  async newestFirst(callerId: string, count: number, beforeId?: string): Promise<LedgerEntry[]> {
    const entries = (await scripts.page.run(this.redis, [this.keys.prefix, callerId, beforeId ? `(${beforeId}` : '+', count])) as [
      string,
      string[],
    ][];
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
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const [field, value] = [flat[i], flat[i + 1]];
    if (field !== undefined && value !== undefined) fields[field] = value;
  }
  return fields;
}
