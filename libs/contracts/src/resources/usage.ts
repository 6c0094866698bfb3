import { z } from 'zod';
import { CursorPagination, Id, IsoDate } from './common';

/** get_usage: the pool that pays for the caller's calls. */
export const Usage = z.object({
  plan: z.string(),
  pool: z.enum(['agent', 'owner']).describe('agent = the agent’s own trial; owner = the owner’s shared plan'),
  allowance: z.int().min(0).describe('tokens the pool grants per period (trial: for life)'),
  used: z.int().min(0),
  reserved: z.int().min(0).describe('held by calls in flight'),
  remaining: z.int().min(0),
  period: z.object({ start: z.iso.datetime(), end: z.iso.datetime() }).nullable().describe('null for the trial'),
});
export type Usage = z.infer<typeof Usage>;

export const UsageEvent = z.object({
  id: z.string().describe('ledger position; increasing'),
  request_id: z.string(),
  agent_id: Id,
  tool: z.string(),
  reserved: z.int().min(0),
  charged: z.int().min(0),
  refunded: z.int().min(0),
  at: z.iso.datetime(),
});
export type UsageEvent = z.infer<typeof UsageEvent>;

export const UsageEvents = z.object({ data: z.array(UsageEvent), pagination: CursorPagination });
export type UsageEvents = z.infer<typeof UsageEvents>;

export const DailyUsage = z.object({
  date: IsoDate,
  agent_id: Id,
  charged: z.int().min(0),
  calls: z.int().min(0),
});
export type DailyUsage = z.infer<typeof DailyUsage>;
