import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedis, Redis } from '@adintel/redis';
import { copySeededStore, freePort, runQueryCli, startApp, startPrivateRedis, WORKSPACE_ROOT, type AppProcess, type PrivateRedis } from '@adintel/testing';
import { newAgentToken } from './agent';
import { SEEDED_ADS } from './seeded-ads';

export { LARGE_SEEDED_ADS, SEEDED_ADS } from './seeded-ads';

export interface Stack {
  /** The one public origin (the dev front door, routed like the ingress). */
  readonly baseUrl: string;
  readonly apps: Record<'auth-server' | 'metering' | 'query-api' | 'mcp-gateway', AppProcess>;
  /** The auth server's signing key (given to it through AUTH_JWKS), for crafting tokens it would never issue. */
  readonly signingKey: JsonWebKey & { kid: string };
  /** Every replica of the services that can run several (the first of each is also in `apps`). */
  readonly replicas: { readonly query: AppProcess[]; readonly metering: AppProcess[] };
  /** The private Redis (data and transport broker alike). */
  readonly redisUrl: string;
  /** Starts one more metering replica (e.g. after stopping them all). */
  startMetering(): Promise<AppProcess>;
  /**
   * Stops the first process of `name` with `signal` (SIGKILL: a crash; SIGTERM: a graceful stop) and starts it
   * again on the same port with the same environment; `apps` (and `replicas`) then hold the new process.
   */
  restart(name: AppName, signal: NodeJS.Signals): Promise<AppProcess>;
  /** Restarts the private Redis (SIGTERM, same port; with `redisAppendOnly` its data survives). */
  restartRedis(): Promise<void>;
  stop(): Promise<void>;
}

export type AppName = keyof Stack['apps'];

/** What the tests leave at their defaults and the benchmark or a suite changes. */
export interface StackOptions {
  /** query-api processes, each on its own copy of the seeded store (default 1). */
  readonly queryReplicas?: number;
  readonly meteringReplicas?: number;
  /** Extra environment for every app. */
  readonly env?: Record<string, string>;
  /** Extra environment per app, e.g. NODE_OPTIONS for a profiler (applied after `env`). */
  readonly appEnv?: Partial<Record<AppName, Record<string, string>>>;
  /** Demo ads seeded into query-api's store (default SEEDED_ADS). */
  readonly ads?: number;
  /**
   * query-api's DATA_DIR, kept after stop so a large seeded store is reused by the next run (the seed skips a
   * store that already holds ads). Default: a temporary folder removed on stop, holding a copy of the seeded store
   * of this build (seededStore of @adintel/testing).
   */
  readonly queryDataDir?: string;
  /** QUERY_WORKERS (default 1). */
  readonly queryWorkers?: number;
  /** Every app's LOG_LEVEL (default info: the request-id test reads the apps' JSON log lines). */
  readonly logLevel?: string;
  /** The gateway's per-account limit of paid calls (default 6000 a minute, bursts of 1000). */
  readonly rateLimit?: { readonly perMinute: number; readonly burst: number };
  /** The trial plan's allowance in tokens (default metering's own plans). */
  readonly trialAllowance?: number;
  /** The private Redis keeps an append-only file, so `restartRedis()` loses nothing (as in production). */
  readonly redisAppendOnly?: boolean;
  /** Every app connects as its own Redis ACL user of docker/redis-users.json (the test itself stays the default user). */
  readonly redisUsers?: boolean;
}

interface RedisUsers {
  readonly shared: string[];
  readonly commands: string[];
  readonly users: Record<AppName, string[]>;
  readonly producer: string[];
}

/**
 * The ACL rules of one app's Redis user, or of the live stream's `producer`, as docker/redis-users.json defines them
 * (a password is added by the caller).
 */
export function redisUserRules(user: AppName | 'producer'): string[] {
  const table = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'docker/redis-users.json'), 'utf8')) as RedisUsers;
  if (user === 'producer') return ['reset', 'on', ...table.producer];
  return ['reset', 'on', ...table.users[user], ...table.shared, ...table.commands];
}

/** Creates each app's ACL user on the Redis at `url` and answers the URL each app connects with. */
async function createRedisUsers(url: string): Promise<Record<AppName, string>> {
  const redis = new Redis(url);
  try {
    const apps: AppName[] = ['auth-server', 'metering', 'query-api', 'mcp-gateway'];
    const urls = await Promise.all(
      apps.map(async (app) => {
        const password = randomBytes(16).toString('hex');
        await redis.call('ACL', 'SETUSER', app, ...redisUserRules(app), `>${password}`);
        const withUser = new URL(url);
        withUser.username = app;
        withUser.password = password;
        return [app, withUser.href] as const;
      }),
    );
    return Object.fromEntries(urls) as Record<AppName, string>;
  } finally {
    redis.disconnect();
  }
}

/**
 * What a suite's beforeAll allows startStack: the first suite of a build to ask for a store seeds it (about 40 s of
 * CPU for SEEDED_ADS, two minutes for LARGE_SEEDED_ADS, most of it the pictures), and suites of the other jest worker
 * or project that ask meanwhile wait for that seed; several minutes on a loaded machine.
 */
export const STACK_START_TIMEOUT_MS = 600_000;

/**
 * The whole service as real processes: a private redis-server (its streams and keys are ours alone, so no
 * other suite's processes take our messages), query-api on a small seeded
 * SQLite store, metering, auth-server, mcp-gateway, and the front door that gives them one origin.
 */
/**
 * Stacks whose start has not returned yet. When a suite's beforeAll times out, jest moves on while startStack goes on
 * starting processes that no afterAll will ever stop (the suite never got the stack), and jest then waits on them for
 * ever: test/stop-unclaimed-stacks.ts stops them when the suite ends, and a start that returns after that stops itself.
 */
const starting = new Set<{ abandoned: boolean; stop(): Promise<void> }>();

/** Stops what every start still in progress has started so far; each stops the rest itself when it returns. */
export async function stopUnclaimedStacks(): Promise<void> {
  for (const start of [...starting]) {
    start.abandoned = true;
    await start.stop();
  }
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'adintel-e2e-'));
  const cleanups: (() => Promise<unknown> | void)[] = [() => rmSync(dataDir, { recursive: true, force: true })];
  // Each cleanup runs once, newest first, however often stop is called (an abandoned start calls it twice).
  const stop = async () => {
    for (let cleanup = cleanups.pop(); cleanup; cleanup = cleanups.pop()) await cleanup();
  };
  const start = { abandoned: false, stop };
  starting.add(start);
  try {
    const redis = await startRedis(cleanups, options.redisAppendOnly ? join(dataDir, 'redis') : undefined);
    const redisUrl = redis.url;
    const frontPort = await freePort();
    const baseUrl = `http://127.0.0.1:${frontPort}`;
    const common = { REDIS_URL: redisUrl, PUBLIC_BASE_URL: baseUrl, LOG_LEVEL: options.logLevel ?? 'info', ...options.env };
    const userUrls = options.redisUsers ? await createRedisUsers(redisUrl) : undefined;
    const envOf = (app: AppName, own: Record<string, string> = {}) => ({
      ...common,
      ...(userUrls ? { REDIS_URL: userUrls[app] } : {}),
      ...own,
      ...options.appEnv?.[app],
    });
    const queryDir = options.queryDataDir ?? join(dataDir, 'query');
    const queryEnv = envOf('query-api', { DATA_DIR: queryDir, QUERY_WORKERS: String(options.queryWorkers ?? 1) });
    const meteringEnv = envOf(
      'metering',
      options.trialAllowance === undefined ? {} : { PLANS: JSON.stringify({ trial: { allowance: options.trialAllowance, period: 'lifetime' } }) },
    );

    const ads = options.ads ?? SEEDED_ADS;
    if (options.queryDataDir) await runQueryCli(['seed', '--count', String(ads)], queryEnv);
    else await copySeededStore(ads, queryDir, queryEnv);
    const queryReplicas = Array.from({ length: options.queryReplicas ?? 1 }, (_, i) => {
      if (i === 0) return queryEnv;
      cpSync(queryDir, join(dataDir, `query-${i}`), { recursive: true });
      return { ...queryEnv, DATA_DIR: join(dataDir, `query-${i}`) };
    });
    const startMetering = async () => {
      const metering = await startApp({ name: 'metering', env: meteringEnv });
      cleanups.push(() => metering.stop());
      return metering;
    };
    const started = await Promise.allSettled([
      ...queryReplicas.map((env) => startApp({ name: 'query-api', env })),
      ...Array.from({ length: options.meteringReplicas ?? 1 }, () => startApp({ name: 'metering', env: meteringEnv })),
    ]);
    for (const outcome of started) if (outcome.status === 'fulfilled') cleanups.push(() => outcome.value.stop());
    const processes = started.map((outcome) => {
      if (outcome.status === 'rejected') throw outcome.reason;
      return outcome.value;
    });
    const replicas = { query: processes.slice(0, queryReplicas.length), metering: processes.slice(queryReplicas.length) };
    const [queryApi, metering] = [replicas.query[0] as AppProcess, replicas.metering[0] as AppProcess];
    const signingKey = { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }), kid: 'e2e-key', alg: 'ES256', use: 'sig' };
    const authEnv = envOf('auth-server', {
      DATA_DIR: join(dataDir, 'auth'),
      AUTH_JWKS: JSON.stringify({ keys: [signingKey] }),
      REGISTRATION_LIMIT_PER_HOUR: '1000',
      TRIALS_PER_NETWORK_PER_DAY: '1000',
      TRIALS_PER_HOUR: '1000',
    });
    const authServer = await startApp({ name: 'auth-server', env: authEnv });
    cleanups.push(() => authServer.stop());
    const gatewayEnv = envOf('mcp-gateway', {
      AUTH_JWKS_URL: `${authServer.url}/oauth2/jwks`,
      // The gateway serves media files from query-api's media folder (read only).
      MEDIA_DIR: join(queryDir, 'media'),
      RATE_LIMIT_PER_MINUTE: String(options.rateLimit?.perMinute ?? 6000),
      RATE_LIMIT_BURST: String(options.rateLimit?.burst ?? 1000),
    });
    const gateway = await startApp({ name: 'mcp-gateway', readyPath: '/readyz', env: gatewayEnv });
    cleanups.push(() => gateway.stop());
    const frontDoor = await startFrontDoor(frontPort, {
      'auth-server': authServer.url,
      'mcp-gateway': gateway.url,
      'query-api': queryApi.url,
      metering: metering.url,
    });
    cleanups.push(() => stopChild(frontDoor));
    const apps: Record<AppName, AppProcess> = { 'auth-server': authServer, metering, 'query-api': queryApi, 'mcp-gateway': gateway };
    const envs: Record<AppName, Record<string, string>> = {
      'auth-server': authEnv,
      metering: meteringEnv,
      'query-api': queryEnv,
      'mcp-gateway': gatewayEnv,
    };
    const restart = async (name: AppName, signal: NodeJS.Signals) => {
      const old = apps[name];
      await old.stop(signal);
      const fresh = await startApp({ name, env: envs[name], port: old.port, readyPath: name === 'mcp-gateway' ? '/readyz' : undefined });
      cleanups.push(() => fresh.stop());
      apps[name] = fresh;
      if (name === 'query-api') replicas.query[0] = fresh;
      if (name === 'metering') replicas.metering[0] = fresh;
      return fresh;
    };
    if (start.abandoned) throw new Error('the suite ended before its stack had started (its beforeAll timed out)');
    return { baseUrl, apps, signingKey, replicas, redisUrl, startMetering, restart, restartRedis: () => redis.restart(), stop };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    starting.delete(start);
  }
}

/** A stack watched as the live suites watch it: a producer on its Redis (writing ingest:ads as any producer does) and an agent. */
export interface LiveStack {
  readonly stack: Stack;
  readonly producer: Redis;
  /** An agent's access token (a registered client with the trial plan). */
  readonly token: string;
  stop(): Promise<void>;
}

/** The live suites' set-up (live.e2e, change-feed.e2e): a stack of their own, a producer named `producerName`, an agent. */
export async function liveStack(producerName: string): Promise<LiveStack> {
  const stack = await startStack();
  const producer = createRedis({ url: stack.redisUrl, name: producerName });
  const stop = async () => {
    producer.disconnect();
    await stack.stop();
  };
  try {
    const { token } = await newAgentToken(stack.baseUrl);
    return { stack, producer, token, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startRedis(cleanups: (() => Promise<unknown> | void)[], appendOnlyDir?: string): Promise<Pick<PrivateRedis, 'url' | 'restart'>> {
  try {
    if (appendOnlyDir) mkdirSync(appendOnlyDir, { recursive: true });
    const redis = await startPrivateRedis({ appendOnlyDir });
    cleanups.push(() => redis.stop());
    return redis;
  } catch (error) {
    // No redis-server binary here: fall back to the shared server, on the gateway e2e's own db.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { url: 'redis://127.0.0.1:6379/3', restart: () => Promise.reject(new Error('the shared Redis is not restarted by tests')) };
    }
    throw error;
  }
}

/**
 * The same front door `npm start` runs (tools/dev-stack), as its own process; ready when it says it listens (asked
 * over HTTP instead, another server on its port, such as a gateway, would answer for it).
 */
async function startFrontDoor(port: number, upstreams: Record<string, string>): Promise<ChildProcess> {
  const frontDoor = join(WORKSPACE_ROOT, 'tools/dev-stack/front-door.mjs');
  const script =
    `import { createFrontDoor } from ${JSON.stringify(frontDoor)};` +
    `createFrontDoor(JSON.parse(process.env.UPSTREAMS)).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, UPSTREAMS: JSON.stringify(upstreams), PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let timer: NodeJS.Timeout | undefined;
  const listening = await new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), 10_000);
    child.stdout?.once('data', () => resolve(true));
    child.once('exit', () => resolve(false)); // EADDRINUSE: the port was taken after it was picked
  }).finally(() => clearTimeout(timer));
  if (listening) return child;
  child.kill('SIGKILL');
  throw new Error(`the front door did not listen on port ${port}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
