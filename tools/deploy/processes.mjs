// Real processes for the bundle test: a private redis-server and apps started from the production bundle.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { freePort } from '../dev-stack/free-port.mjs';

export { freePort };

/** Starts `command args` and resolves once `ready()` holds; the handle stops it and keeps its output. */
export async function startProcess(name, command, args, { cwd, env, ready, timeoutMs = 60_000 }) {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  // Whole lines only: a log line can arrive split over two reads of the pipe.
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => line && output.push(line));
  let exited = null;
  const exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve((exited = signal ?? code))));
  const stop = async () => {
    if (exited === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exit;
    clearTimeout(timer);
  };
  const deadline = Date.now() + timeoutMs;
  while (!(await ready().catch(() => false))) {
    if (exited !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`${name} did not become ready (${exited !== null ? `exited ${exited}` : 'timeout'}):\n${output.slice(-30).join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { name, pid: child.pid, output, stop, exitCode: () => exited };
}

/** A private redis-server (no persistence) on a free port. */
export async function startRedis() {
  const port = await freePort();
  const redis = await startProcess('redis-server', 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    ready: async () => {
      const { createConnection } = await import('node:net');
      const socket = createConnection(port, '127.0.0.1');
      await once(socket, 'connect');
      socket.end();
      return true;
    },
  });
  return { ...redis, url: `redis://127.0.0.1:${port}` };
}

/** 200 from `url` within two seconds. */
export async function answers(url) {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await res.arrayBuffer();
  return res.ok;
}
