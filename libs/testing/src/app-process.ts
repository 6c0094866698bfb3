import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

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

/**
 * A free TCP port on loopback, picked below the kernel's ephemeral range: a port from that range (what listen(0)
 * hands out) can be taken by any outgoing connection between this check and the app's own listen, which a busy test
 * run saw as EADDRINUSE. tools/dev-stack/free-port.mjs picks the same way for the scripts' tests.
 *
 * Never the same port twice in a process: a port picked now may be bound much later (a stack's front door, after its
 * apps are ready), and meanwhile it is free to the next pick; a CI run saw a stack's gateway given its front door's port.
 */
export async function freePort(): Promise<number> {
  const below = ephemeralLow();
  for (let attempt = 0; below !== undefined && attempt < 50; attempt += 1) {
    const port = below - 1 - Math.floor(Math.random() * Math.min(16_000, below - 1_025));
    if (!handedOut.has(port) && (await listenOnce(port)) !== undefined) return handOut(port);
  }
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = await listenOnce(0);
    if (port === undefined) break;
    if (!handedOut.has(port)) return handOut(port);
  }
  throw new Error('no free port on 127.0.0.1');
}

/** The ports freePort gave in this process. */
const handedOut = new Set<number>();

function handOut(port: number): number {
  handedOut.add(port);
  return port;
}

/** The first port of Linux's ephemeral range; undefined elsewhere. */
function ephemeralLow(): number | undefined {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return low > 2_048 ? low : undefined;
  } catch {
    return undefined;
  }
}

/** Listens on `port` (0: any) and closes again: the port it had, or undefined when it was taken. */
function listenOnce(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const bound = (server.address() as { port: number }).port;
      server.close(() => resolve(bound));
    });
  });
}

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
