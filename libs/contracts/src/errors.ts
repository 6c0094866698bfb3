import { z } from 'zod';

/**
 * Error codes that cross service boundaries. Each maps to one HTTP status at the edge;
 * services never speak HTTP to each other, only these codes.
 */
export const ERROR_STATUS = {
  invalid_argument: 400,
  unauthenticated: 401,
  insufficient_balance: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  /** A position the service no longer (or never) holds: a change feed watermark past retention or of another store. */
  gone: 410,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  timeout: 504,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;
const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export const FieldError = z.object({
  field: z.string().describe('dotted path of the bad argument, e.g. limit or platforms.0'),
  message: z.string(),
  allowed: z.array(z.string()).optional(),
});
export type FieldError = z.infer<typeof FieldError>;

export const BalanceShortfall = z.object({
  needed: z.int().min(0),
  remaining: z.int().min(0),
  max_affordable_limit: z.int().min(0),
});
export type BalanceShortfall = z.infer<typeof BalanceShortfall>;

/** What a service replies instead of a result. */
export const ServiceErrorPayload = z.object({
  code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
  message: z.string(),
  errors: z.array(FieldError).optional(),
  balance: BalanceShortfall.optional(),
  retry_after_seconds: z.int().min(0).optional(),
});
export type ServiceErrorPayload = z.infer<typeof ServiceErrorPayload>;

/** RFC 9457 problem details, as served by the REST edge and inside MCP `isError` results. */
export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.int(),
    detail: z.string(),
    instance: z.string().optional(),
    request_id: z.string().optional(),
    errors: z.array(FieldError).optional(),
    needed: z.int().optional(),
    remaining: z.int().optional(),
    max_affordable_limit: z.int().optional(),
    retry_after: z.int().optional(),
  })
  .loose();
export type Problem = z.infer<typeof Problem>;

/** Turns zod issues into the field errors every 400 carries. */
export function fieldErrorsFrom(error: z.ZodError, knownKeys: readonly string[] = []): FieldError[] {
  return error.issues.flatMap((issue): FieldError[] => {
    const at = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: [...at, key].join('.'),
        message: 'is not a parameter of this tool',
        ...(knownKeys.length ? { allowed: [...knownKeys] } : {}),
      }));
    }
    const allowed = issue.code === 'invalid_value' ? issue.values.map(String) : undefined;
    return [{ field: at.join('.') || '(arguments)', message: issue.message, ...(allowed ? { allowed } : {}) }];
  });
}

/** One line naming every bad field, for a problem's `detail` and a rejected line's reason. */
export function describeFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ');
}
