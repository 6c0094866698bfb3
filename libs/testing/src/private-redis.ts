import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './free-port';

export interface PrivateRedis {
  readonly url: string;
  stop(): Promise<void>;
  /** Stops it (SIGTERM: an append-only file is flushed) and starts it again on the same port and directory. */
  restart(): Promise<void>;
}

export interface PrivateRedisOptions {
  /**
   * A directory for an append-only file (`appendonly yes`, fsync every write): the data survives `restart()`,
   * as in production. Without it nothing is persisted.
   */
  readonly appendOnlyDir?: string;
}

/**
 * A throwaway redis-server on a free loopback port, for a test that runs apps as real processes and wants a
 * Redis nobody else touches. Rejects with ENOENT when redis-server is not installed.
 */
export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const port = await freePort();
  let current = await startRedisServer(port, options);
  return {
    url: current.url,
    stop: () => current.stop(),
    restart: async () => {
      await current.stop();
      current = await startRedisServer(port, options);
    },
  };
}

async function startRedisServer(port: number, options: PrivateRedisOptions): Promise<Omit<PrivateRedis, 'restart'>> {
  const persistence = options.appendOnlyDir
    ? ['--dir', options.appendOnlyDir, '--appendonly', 'yes', '--appendfsync', 'always']
    : ['--appendonly', 'no'];
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence], {
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
    try {
      if (await Promise.race([pingRedis(url), failed])) return { url, stop };
    } catch (error) {
      await stop();
      throw error;
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server on port ${port} did not answer PING`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** True when a Redis answers PING at `url` (plain RESP over TCP: this lib needs no Redis client). */
export function pingRedis(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 6379) });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
    socket.once('connect', () => socket.write('PING\r\n'));
  });
}
