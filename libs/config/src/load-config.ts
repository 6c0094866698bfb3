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

/** Variables every app reads. */
export const baseConfigShape = {
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .default('http://localhost:3000')
    .transform((url) => url.replace(/\/+$/, ''))
    .describe('the one public origin; issuer and token audience derive from it'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  TRANSPORT_URL: z
    .url({ protocol: /^rediss?$/ })
    .optional()
    .describe('the Redis that carries messages between the services (Redis Streams); unset: REDIS_URL'),
  TRANSPORT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
};

export const port = (fallback: number) => z.coerce.number().int().min(1).max(65_535).default(fallback);

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
