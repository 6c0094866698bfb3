import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from '@adintel/redis';
import { freePort } from './app-process';

export interface PrivateRedis {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * A throwaway redis-server (no persistence) on a free loopback port, for a test that runs apps as real
 * processes and wants a Redis nobody else touches. Rejects with ENOENT when redis-server is not installed.
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const failed = new Promise<never>((_, reject) => child.once('error', (error) => reject(error)));
  const url = `redis://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      await Promise.race([probe.connect().then(() => probe.ping()), failed]);
      return { url, stop };
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline || (error as NodeJS.ErrnoException).code === 'ENOENT') {
        await stop();
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      probe.disconnect();
    }
  }
}
