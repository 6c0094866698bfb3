import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { freePort } from './free-port';

export const WORKSPACE_ROOT = join(__dirname, '..', '..', '..');

export interface AppProcess {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  /** The OS process id (to pause it with SIGSTOP, for instance). */
  readonly pid: number;
  /** Lines the process wrote, for assertions on logs and for failure reports. */
  readonly output: string[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartAppOptions {
  /** Project name: runs `dist/apps/<name>/main.js` (build it first: the test target depends on build). */
  readonly name: string;
  readonly env?: Record<string, string>;
  readonly port?: number;
  /** Path that answers 200 when the app is ready (within READY_TIMEOUT_MS). */
  readonly readyPath?: string;
}

/**
 * How long an app may take to answer its readiness probe: a hang-catcher, not a bound a test asserts (startup time is
 * measured by the npm-start test and the benchmarks). Test lanes run side by side on 2 shared cores: a query-api that
 * is ready in 0.65 s on a quiet machine took 12 s beside 30 busy loops, a gateway took over 30 s at load average 27,
 * and CI runs at load 30 on slower machines failed whole suites at the former 30 s.
 */
export const READY_TIMEOUT_MS = 120_000;



/** Starts a built app as a real process with the same Node that runs the tests, and waits until it is ready. */
export async function startApp(options: StartAppOptions): Promise<AppProcess> {
  const script = join(WORKSPACE_ROOT, 'dist', 'apps', options.name, 'main.js');
  if (!existsSync(script)) throw new Error(`${script} is missing: build ${options.name} first (nx build ${options.name})`);
  const port = options.port ?? (await freePort());
  const output: string[] = [];
  const child = spawn(process.execPath, [script], {
    cwd: WORKSPACE_ROOT,
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', PORT: String(port), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Whole lines only: a log line can arrive split over two reads of the pipe (a busy machine, a long line).
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => line && output.push(line));
  }
  // Node leaves pid unset only when the process could not be spawned at all (its 'error' event follows).
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${options.name} could not be started (${process.execPath} ${script})`);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const app: AppProcess = { name: options.name, url, port, pid, output, stop: (signal) => stop(child, exited, signal) };
  try {
    await waitUntilReady(`${url}${options.readyPath ?? '/healthz'}`, READY_TIMEOUT_MS, exited);
  } catch (error) {
    await app.stop('SIGKILL');
    throw new Error(`${options.name} did not become ready: ${(error as Error).message}\n${output.slice(-30).join('\n')}`, {
      cause: error,
    });
  }
  return app;
}

async function waitUntilReady(url: string, timeoutMs: number, exited: Promise<number | null>) {
  const deadline = Date.now() + timeoutMs;
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  while (Date.now() < deadline) {
    if (hasExited) throw new Error('the process exited');
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
}

async function stop(child: ChildProcess, exited: Promise<number | null>, signal: NodeJS.Signals = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.kill(signal);
  const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const code = await exited;
  clearTimeout(killer);
  return code;
}
