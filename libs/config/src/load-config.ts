import { isIP } from 'node:net';
import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads and validates configuration from the environment once, at start-up.
 * Each problem names the variable, so a bad deployment says exactly what to fix.
 */
export function loadConfig<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const raw = Object.fromEntries(Object.keys(schema.shape).map((key) => [key, emptyAsUnset(env[key])]));
  const result = schema.safeParse(raw);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join('.') || '(config)'}: ${issue.message} (got ${JSON.stringify(raw[String(issue.path[0])] ?? null)})`),
    );
  }
  return result.data;
}

const emptyAsUnset = (value: string | undefined) => (value === '' ? undefined : value);

/** Names express (proxy-addr) accepts for address ranges besides IPs and CIDRs. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** Comma-separated proxy addresses: IPs, CIDRs, or loopback / linklocal / uniquelocal. */
const proxyList = z
  .string()
  .transform((value) => value.split(',').map((entry) => entry.trim()).filter(Boolean))
  .pipe(z.array(z.string().refine(isProxyAddress, 'must be an IP, a CIDR (10.0.0.0/8) or loopback, linklocal, uniquelocal')));

/** Variables every app reads. Each `.describe()` text is the README's Configuration table (`npx nx run docs:generate`). */
export const baseConfigShape = {
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development').describe('runtime mode'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('least severe JSON log line written'),
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .default('http://localhost:3000')
    .transform((url) => url.replace(/\/+$/, ''))
    .describe('the one public origin; the OAuth issuer is this URL and every access token’s audience is `{PUBLIC_BASE_URL}/mcp`'),
  REDIS_URL: z
    .url({ protocol: /^rediss?$/ })
    .default('redis://127.0.0.1:6379')
    .describe(
      'the store of auth-server, metering and the gateway’s rate limits, and the transport between apps unless ' +
        'TRANSPORT_URL is set. A `/<db>` suffix selects a database; streams and keys live in it, so one Redis can hold ' +
        'several isolated environments',
    ),
  TRANSPORT_URL: z
    .url({ protocol: /^rediss?$/ })
    .optional()
    .describe('the Redis that carries messages between the services (Redis Streams); unset: REDIS_URL'),
  TRANSPORT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(120_000)
    .default(10_000)
    .describe(
      'how long a message may wait for its answer (then 504); it is also the message’s deadline, and a replica that died ' +
        'holding a message loses it to a live one after a third of it (0.5–3 s)',
    ),
  SHUTDOWN_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(120_000)
    .default(10_000)
    .describe('how long a graceful SIGTERM shutdown may take before the process exits'),
  HOST: z
    .string()
    .refine((host) => isIP(host) !== 0, 'must be an IP address, e.g. 127.0.0.1 or 0.0.0.0')
    .default('127.0.0.1')
    .describe('address the HTTP server binds to: loopback by default; 0.0.0.0 (all interfaces) only where a network policy or proxy fronts the app (containers, Kubernetes)'),
  TRUSTED_PROXIES: proxyList
    .default(['loopback'])
    .describe('comma-separated addresses or CIDRs of the reverse proxies whose X-Forwarded-For / -Proto are believed (client IP for rate limits); loopback, linklocal, uniquelocal name those ranges'),
};

export const port = (fallback: number) =>
  z.coerce.number().int().min(1).max(65_535).default(fallback).describe('the app’s HTTP port');

/** Env flags: "true"/"1"/"yes" and "false"/"0"/"no". */
export const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** The audience every access token must carry. */
export const mcpResourceUrl = (publicBaseUrl: string) => `${publicBaseUrl}/mcp`;

/** loadConfig for an app's entry point: a bad value stops the app with one line naming the variable. */
export function loadConfigOrExit<S extends z.ZodObject>(schema: S, service: string): z.infer<S> {
  try {
    return loadConfig(schema);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${JSON.stringify({ level: 'fatal', service, msg: error.message, problems: error.problems })}\n`);
    process.exit(1);
  }
}
