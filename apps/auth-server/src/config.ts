import { z } from 'zod';
import { baseConfigShape, port } from '@adintel/config';

const positiveInt = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

export const appConfigSchema = z.object({
  ...baseConfigShape,
  PORT: port(3001),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]{1,64}$/, 'letters, digits, ":", "_" or "-"')
    .default('auth:')
    .describe('prefix of every Redis key this service writes (clients, grants, sessions, owners, counters)'),
  DATA_DIR: z
    .string()
    .min(1)
    .default('data/auth')
    .describe('where locally generated signing keys and cookie keys are kept when AUTH_JWKS / AUTH_COOKIE_KEYS are unset'),
  AUTH_JWKS: z
    .string()
    .optional()
    .describe('private JWKS (JSON) with at least one ES256 key; the first one signs, the others stay published for rotation'),
  AUTH_JWKS_FILE: z.string().optional().describe('path of a file holding the private JWKS (e.g. a mounted secret); used when AUTH_JWKS is unset'),
  AUTH_COOKIE_KEYS: z
    .string()
    .optional()
    .describe('comma-separated secrets (>= 32 chars each) signing cookies and form tokens; the first signs, all verify'),
  REGISTRATION_LIMIT_PER_HOUR: positiveInt(20).describe('client registrations accepted per client IP per hour'),
  TOKEN_FAILURES_PER_CLIENT: positiveInt(10).describe('failed client authentications per client id per window at the token endpoint before it answers 429'),
  TOKEN_FAILURES_PER_IP: positiveInt(30).describe('failed client authentications per client IP per window at the token endpoint before it answers 429'),
  TOKEN_FAILURE_WINDOW_SECONDS: positiveInt(300).describe('the window failed token-endpoint authentications are counted in, and the longest pause after too many'),
  ACCESS_TOKEN_TTL_SECONDS: positiveInt(3600).describe('lifetime of access tokens'),
  LOGIN_MAX_FAILURES: positiveInt(10).describe('failed sign-ins per account email before sign-in pauses'),
  LOGIN_LOCK_SECONDS: positiveInt(900).describe('how long failed sign-ins are counted, and the pause after too many'),
  ACCOUNT_SESSION_TTL_SECONDS: positiveInt(8 * 3600).describe('lifetime of an owner session on the account page'),
});

export type AppConfig = z.infer<typeof appConfigSchema>;
