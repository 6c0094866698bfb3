import { z } from 'zod';
import { baseConfigShape, flag, port } from '@adintel/config';
import { BUILT_VIEWS_DIR } from '@adintel/mcp-views';
import { checkMediaStoreConfig, mediaStoreConfigShape } from '@adintel/media-store';

const originList = z
  .string()
  .transform((value) => value.split(',').map((origin) => origin.trim()).filter(Boolean))
  .pipe(z.array(z.url({ protocol: /^https?$/ }).transform((url) => new URL(url).origin)));

export const appConfigSchema = z.object({
  ...baseConfigShape,
  PORT: port(3002),
  AUTH_JWKS_URL: z
    .url({ protocol: /^https?$/ })
    .default('http://127.0.0.1:3001/oauth2/jwks')
    .describe('where the auth server publishes its signing keys (fetched server-side, cached, refetched on an unknown kid)'),
  AUTH_ISSUER: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('the `iss` every access token must carry; default PUBLIC_BASE_URL'),
  JWKS_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(5_000).describe('JWKS fetch timeout'),
  JWKS_CACHE_MAX_AGE_SECONDS: z.coerce.number().int().min(1).default(600).describe('how long fetched keys are trusted (an unknown `kid` refetches sooner)'),
  JWKS_COOLDOWN_SECONDS: z.coerce.number().int().min(0).default(30).describe('least time between two JWKS refetches'),
  TOKEN_CACHE_ENTRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(10_000)
    .describe(
      'verified access tokens remembered (by SHA-256, least recently used dropped first) so repeat calls skip the signature ' +
        'check; an entry never outlives the token’s `exp` nor JWKS_CACHE_MAX_AGE_SECONDS. 0 verifies every request',
    ),
  REVOCATION_STREAM: z
    .string()
    .min(1)
    .max(128)
    .default('auth:revocations')
    .describe('the Redis stream of revoked access tokens and grants the auth server writes (its REDIS_KEY_PREFIX + `revocations`); a listed token is refused even when cached'),
  REVOCATION_POLL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(1_000)
    .describe('how often the revocation stream is read: a revoked token is refused within about this long'),
  MCP_ALLOWED_ORIGINS: originList
    .optional()
    .describe('comma-separated browser origins allowed on `/mcp` (requests without `Origin` are fine); default the origin of PUBLIC_BASE_URL'),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(120).describe('paid calls per account per minute (refill rate)'),
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).max(1_000_000).default(30).describe('paid calls an account may make at once (bucket size)'),
  FREE_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(600)
    .describe('calls of the free data tools (count_ads, search_advertisers, get_catalog) per account per minute: a bucket of their own'),
  FREE_RATE_LIMIT_BURST: z.coerce.number().int().min(1).max(1_000_000).default(60).describe('free data tool calls an account may make at once'),
  SCANS_IN_FLIGHT_PER_ACCOUNT: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(2)
    .describe('calls of the scanning tools (get_ads_breakdown, get_trends) one account may have running at once; more are answered 429'),
  SETTLE_ATTEMPTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(10)
    .default(3)
    .describe('how often a paid call’s settle is sent to metering before its receipt says `pending` (settle is idempotent, so a retry never charges twice)'),
  IDEMPOTENCY_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 86_400)
    .default(3_600)
    .describe('how long the answer of a paid call made with an Idempotency-Key is kept and replayed (charged 0) to a repeat with the same key'),
  GATEWAY_KEY_PREFIX: z.string().min(1).max(64).default('gateway:').describe('prefix of the gateway’s Redis keys'),
  MCP_FAST_PATH: flag(true).describe(
    'answer a plain MCP `tools/call` in JSON in the gateway itself, exactly as the SDK would (less CPU per call); `false` sends every MCP request through the SDK',
  ),
  MCP_VIEWS_DIR: z
    .string()
    .min(1)
    .default(BUILT_VIEWS_DIR)
    .describe('folder of the built MCP Apps views (`nx build mcp-views`), relative to the working directory; read once at start-up'),
  // The media store the gateway serves files from (read only): the same engine and variables as query-api's.
  ...mediaStoreConfigShape,
  MEDIA_DIR: z
    .string()
    .min(1)
    .default('data/query/media')
    .describe('the media folder of MEDIA_ENGINE=filesystem: query-api’s DATA_DIR/media (the same volume); read only'),
}).superRefine(checkMediaStoreConfig);

/** Fills the defaults that derive from other variables. */
export function resolveConfig(raw: z.infer<typeof appConfigSchema>) {
  return {
    ...raw,
    AUTH_ISSUER: (raw.AUTH_ISSUER ?? raw.PUBLIC_BASE_URL).replace(/\/+$/, ''),
    MCP_ALLOWED_ORIGINS: raw.MCP_ALLOWED_ORIGINS ?? [new URL(raw.PUBLIC_BASE_URL).origin],
  };
}

export type AppConfig = ReturnType<typeof resolveConfig>;
