import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from '@adintel/testing';

export interface PrivateRedis {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * A throwaway redis-server for a test that runs query-api as a real process. Redis PUB/SUB ignores the
 * database number, so a query-api process on the shared Redis would also answer other suites' query
 * messages (and they its); a private server keeps both sides apart.
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const failed = new Promise<never>((_, reject) => child.once('error', (error) => reject(error)));
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  const deadline = Date.now() + 10_000;
  try {
    for (;;) {
      try {
        await Promise.race([probe.connect().then(() => probe.ping()), failed]);
        break;
      } catch (error) {
        if (child.exitCode !== null || Date.now() > deadline || (error as NodeJS.ErrnoException).code === 'ENOENT') throw error;
        probe.disconnect();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    probe.disconnect();
  }
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
