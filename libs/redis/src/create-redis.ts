import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { redisConnectionOptions } from './connection-options';

export interface RedisConnectionOptions {
  readonly url: string;
  /** Names the connection in logs and in `CLIENT LIST` (e.g. `metering`, `rate-limit`). */
  readonly name: string;
  /** Prefix ioredis adds to every key this connection touches. */
  readonly keyPrefix?: string;
  /** Bounds each command, so a stalled Redis fails a request instead of hanging it. */
  readonly commandTimeoutMs?: number;
  /** Retries of one command across reconnects before it fails (default 2). */
  readonly maxRetriesPerRequest?: number;
  /** A blocking reader (XREAD ... BLOCK) must not queue behind a reconnect; it retries itself. */
  readonly blocking?: boolean;
}

/**
 * One Redis connection that reconnects for as long as the process lives (a dropped connection must never
 * leave a service deaf) and reports its errors as log lines instead of unhandled 'error' events.
 */
export function createRedis(options: RedisConnectionOptions): Redis {
  const redis = new Redis({
    ...redisConnectionOptions(options.url),
    connectionName: options.name,
    ...(options.keyPrefix ? { keyPrefix: options.keyPrefix } : {}),
    ...(options.commandTimeoutMs ? { commandTimeout: options.commandTimeoutMs } : {}),
    maxRetriesPerRequest: options.blocking ? null : (options.maxRetriesPerRequest ?? 2),
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  const logger = new Logger(`Redis:${options.name}`);
  redis.on('error', (error) => logger.warn(`redis: ${error.message}`));
  return redis;
}

/** Closes politely (QUIT, falling back to dropping the socket) and resolves once the connection has ended. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  const ended = new Promise((resolve) => redis.once('end', resolve));
  // A Redis that does not answer (down, reconnecting) gets its socket dropped after a second.
  const fallback = setTimeout(() => redis.disconnect(), 1_000);
  await redis.quit().catch(() => redis.disconnect());
  await ended;
  clearTimeout(fallback);
}
