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
    .describe('prefix of every Redis key auth-server writes (clients, grants, sessions, owners, counters)'),
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
  REGISTRATION_LIMIT_PER_HOUR: positiveInt(20).describe(
    'client registrations accepted per client network (IPv4 /24, IPv6 /56) per hour (then 429 + `Retry-After`)',
  ),
  TRIALS_PER_NETWORK_PER_DAY: positiveInt(10).describe(
    'agent registrations (clients that may use `client_credentials`, each given a free trial by metering) accepted per client network per UTC day',
  ),
  TRIALS_PER_HOUR: positiveInt(100).describe(
    'agent registrations accepted per hour from everyone together: the ceiling on new free trials (then 429 + `Retry-After` and `adintel_limit_refusals_total{limit="trials_global"}`)',
  ),
  CLIENT_UNUSED_TTL_SECONDS: positiveInt(24 * 3600).describe(
    'a registered client that never takes a token is deleted after this long (an agent attached to an owner never expires)',
  ),
  CLIENT_IDLE_TTL_SECONDS: positiveInt(30 * 24 * 3600).describe(
    "a registered client is deleted after this long without a token issued to it (an agent attached to an owner never expires), or when metering's trial of it ends if that is sooner: keep it below metering's `TRIAL_TTL_SECONDS`",
  ),
  TOKEN_FAILURES_PER_CLIENT: positiveInt(10).describe(
    'wrong client secrets per (client id, client address) per window (token and revocation endpoints, attaching an agent) before that address gets 429 for that client; other addresses are not affected',
  ),
  TOKEN_FAILURES_PER_IP: positiveInt(30).describe(
    'wrong client secrets per client address (IPv4 address, IPv6 /64) per window, whatever the client id, before that address gets 429',
  ),
  TOKEN_FAILURE_WINDOW_SECONDS: positiveInt(300).describe('the window wrong client secrets are counted in, and the longest pause after too many'),
  ACCESS_TOKEN_TTL_SECONDS: positiveInt(3600).describe('access-token lifetime'),
  LOGIN_MAX_FAILURES: positiveInt(5).describe(
    'failed sign-ins per (owner email, client address) before that address must wait between tries for that email: 2 s, then doubling up to LOGIN_LOCK_SECONDS (429 + `Retry-After`); other addresses are not affected',
  ),
  LOGIN_FAILURES_PER_IP: positiveInt(20).describe(
    'failed sign-ins per client address (IPv4 address, IPv6 /64) per LOGIN_LOCK_SECONDS, whatever the email, before that address gets 429 (password spraying)',
  ),
  LOGIN_HASHES_AT_ONCE: positiveInt(2).describe(
    'owner password hashes (scrypt, 32 MiB each) one process runs at once; LOGIN_HASHES_WAITING more wait, further sign-ins get 429 + `Retry-After: 1`',
  ),
  LOGIN_HASHES_WAITING: positiveInt(16).describe('sign-ins that may wait for a password hash slot (LOGIN_HASHES_AT_ONCE)'),
  LOGIN_LOCK_SECONDS: positiveInt(900).describe(
    'how long failed sign-ins are counted, and the longest pause after too many; a successful sign-in clears its (email, address) count',
  ),
  ACCOUNT_SESSION_TTL_SECONDS: positiveInt(8 * 3600).describe('lifetime of an owner session on `/account`'),
  CIMD_CACHE_MIN_SECONDS: positiveInt(300).describe(
    'shortest time a fetched client_id metadata document is cached, whatever its Cache-Control says (at most 100 documents are kept)',
  ),
  METADATA_DOCUMENT_REQUESTS_PER_MINUTE: positiveInt(30).describe(
    'requests naming a client by a metadata document URL (which may make the server fetch it) accepted per client network per minute (then 429 + `Retry-After`)',
  ),
  REVOCATIONS_PER_CLIENT_PER_MINUTE: positiveInt(30).describe(
    'revocation requests (`/oauth2/revoke`) one authenticated client may make per minute (then 429 + `Retry-After`); failed client authentications are not counted here but as secret failures',
  ),
  CIMD_CACHE_MAX_SECONDS: positiveInt(24 * 3600).describe('longest time a fetched client_id metadata document is cached'),
  CIMD_TEST_LOOPBACK_CA_FILE: z
    .string()
    .min(1)
    .optional()
    .describe(
      'TEST ONLY, refused unless NODE_ENV=test: PEM CA file; client_id metadata documents may then come from loopback addresses, and TLS trusts this CA alone',
    ),
}).superRefine((config, ctx) => {
  if (config.CIMD_TEST_LOOPBACK_CA_FILE !== undefined && config.NODE_ENV !== 'test') {
    ctx.addIssue({ code: 'custom', path: ['CIMD_TEST_LOOPBACK_CA_FILE'], message: 'only allowed with NODE_ENV=test: it lets the server fetch from loopback' });
  }
  if (config.CIMD_CACHE_MIN_SECONDS > config.CIMD_CACHE_MAX_SECONDS) {
    ctx.addIssue({ code: 'custom', path: ['CIMD_CACHE_MIN_SECONDS'], message: 'must not exceed CIMD_CACHE_MAX_SECONDS' });
  }
});

export type AppConfig = z.infer<typeof appConfigSchema>;
