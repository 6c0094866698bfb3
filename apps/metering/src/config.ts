import { z } from 'zod';
import { baseConfigShape, port } from '@adintel/config';

/** A plan grants `allowance` tokens per period: `lifetime` never resets, `month` resets on the 1st, 00:00 UTC. */
const PlanSchema = z.strictObject({
  allowance: z.int().min(0).max(1_000_000_000),
  period: z.enum(['lifetime', 'month']),
});
export type Plan = z.infer<typeof PlanSchema>;

/** The plan every agent starts on; PLANS must define it. */
export const TRIAL_PLAN = 'trial';

export const DEFAULT_PLANS = {
  trial: { allowance: 500, period: 'lifetime' },
  pro: { allowance: 40_000, period: 'month' },
} as const satisfies Record<string, Plan>;

const PlansSchema = z
  .record(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'plan ids are lowercase slugs'), PlanSchema)
  .refine((plans) => TRIAL_PLAN in plans, { message: `must define the "${TRIAL_PLAN}" plan every agent starts on` });

const plansFromJson = z
  .string()
  .default(JSON.stringify(DEFAULT_PLANS))
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be JSON, e.g. {"trial":{"allowance":500,"period":"lifetime"}}' });
      return z.NEVER;
    }
  })
  .pipe(PlansSchema);

export const appConfigSchema = z.object({
  ...baseConfigShape,
  PORT: port(3004),
  PLANS: plansFromJson.describe(
    'plans as JSON, `{"<id>": {"allowance": <tokens>, "period": "lifetime" or "month"}}`; `lifetime` never resets, `month` ' +
      'resets every calendar month (UTC); must define `trial`',
  ),
  RESERVATION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(86_400)
    .default(120)
    .describe('a reservation never settled expires after this and its tokens come back'),
  SWEEP_INTERVAL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3_600)
    .default(15)
    .describe('how often the sweeper returns expired reservations of pools nobody is calling'),
  TRIAL_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(10 * 365 * 86_400)
    .default(31 * 86_400)
    .describe(
      "an agent's trial (its record and token pool) is deleted this long after its last paid call or token issued, " +
        "unless an owner attached the agent; keep it above the auth server's `CLIENT_IDLE_TTL_SECONDS` (30 days) by a margin, " +
        'so a client never outlives its trial and gets a fresh one',
    ),
  LEDGER_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(400).describe('usage events and daily aggregates older than this are trimmed; a ledger without events for this long is deleted'),
  REDIS_KEY_PREFIX: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9:_.-]+$/, 'letters, digits and : _ . - only')
    .default('metering:')
    .describe('prefix of every key metering writes'),
});
export type AppConfig = z.infer<typeof appConfigSchema>;
