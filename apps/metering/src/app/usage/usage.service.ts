import { Inject, Injectable } from '@nestjs/common';
import type { DailyUsage, Usage, UsageEvent, UsageEvents } from '@adintel/contracts';
import { APP_CONFIG } from '@adintel/config';
import { ServiceError } from '@adintel/contracts';
import type { AppConfig } from '../../config';
import { AccountsService } from '../accounts/accounts.service';
import { decodeLedgerCursor, encodeLedgerCursor } from './ledger-cursor';
import { LedgerRepository, type LedgerEntry } from './ledger.repository';

const DAY_MS = 86_400_000;

@Injectable()
export class UsageService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly ledger: LedgerRepository,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'LEDGER_RETENTION_DAYS'>,
  ) {}

  usage(callerId: string): Promise<Usage> {
    return this.accounts.usage(callerId);
  }

  /** The caller's ledger, newest first: an owner sees every call its pool paid for, an agent its own calls. */
  async events(callerId: string, limit: number, cursor?: string): Promise<UsageEvents> {
    const before = cursor === undefined ? undefined : decodeLedgerCursor(cursor);
    const entries = await this.ledger.newestFirst(callerId, limit + 1, before);
    const page = entries.slice(0, limit);
    const hasMore = entries.length > limit;
    const last = page.at(-1);
    return {
      data: page.map(toUsageEvent),
      pagination: { next_cursor: hasMore && last ? encodeLedgerCursor(last.id) : null, has_more: hasMore },
    };
  }

  /** Tokens and calls per agent per UTC day, for the owner's chart. */
  async daily(ownerId: string, dateFrom: string, dateTo: string): Promise<{ data: DailyUsage[] }> {
    const from = Date.parse(`${dateFrom}T00:00:00Z`);
    const to = Date.parse(`${dateTo}T00:00:00Z`);
    if (to < from) throw ServiceError.invalidArgument([{ field: 'date_to', message: 'must not be before date_from' }]);
    const days = (to - from) / DAY_MS + 1;
    if (days > this.config.LEDGER_RETENTION_DAYS) {
      throw ServiceError.invalidArgument([
        { field: 'date_from', message: `the range may span at most ${this.config.LEDGER_RETENTION_DAYS} days (the ledger's retention)` },
      ]);
    }
    await this.accounts.requireOwner(ownerId);
    const dates = Array.from({ length: days }, (_, i) => new Date(from + i * DAY_MS).toISOString().slice(0, 10));
    const counts = await this.ledger.daily(ownerId, dates);
    const data = counts.flatMap(({ date, charged, calls }) =>
      [...new Set([...Object.keys(charged), ...Object.keys(calls)])]
        .sort()
        .map((agentId) => ({ date, agent_id: agentId, charged: Number(charged[agentId] ?? 0), calls: Number(calls[agentId] ?? 0) })),
    );
    return { data };
  }
}

function toUsageEvent({ id, fields }: LedgerEntry): UsageEvent {
  return {
    id,
    request_id: fields['request_id'] ?? '',
    agent_id: fields['agent_id'] ?? '',
    tool: fields['tool'] ?? '',
    reserved: Number(fields['reserved'] ?? 0),
    charged: Number(fields['charged'] ?? 0),
    refunded: Number(fields['refunded'] ?? 0),
    at: fields['at'] ?? '',
  };
}
