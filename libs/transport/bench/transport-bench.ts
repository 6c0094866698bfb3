/**
 * Transport benchmark (not a test). In one run, on a private redis-server:
 *  1. p50/p99 of one request/reply round trip (an echo handler in another process, one call at a time) through
 *     the old NestJS PUB/SUB client (a copy of it lives only here, for this comparison) and through Streams;
 *  2. throughput of query-api (`search_ads`, limit 20, 16 calls in flight, one query worker per replica) over the
 *     transport with 1 and 2 replicas (100,000 seeded ads).
 * Run: npx nx run transport:bench [-- --calls=2000 --seconds=8 --round-trip-only]
 */
import 'reflect-metadata';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Logger } from '@nestjs/common';
import { ClientRedis, ServerRedis } from '@nestjs/microservices';
import { firstValueFrom, timeout } from 'rxjs';
import { z } from 'zod';
import { defineMessage, QueryMessages } from '@adintel/contracts';
import { Redis, redisConnectionOptions } from '@adintel/redis';
import { startApp, startPrivateRedis, WORKSPACE_ROOT, type AppProcess } from '@adintel/testing';
import { ServiceClient, StreamsServer } from '../src';

const { values } = parseArgs({ options: {
    calls: { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '8' },
    'round-trip-only': { type: 'boolean', default: false },
    /** run one transport's round trip only (for a CPU profile of it: node --cpu-prof ...) */
    only: { type: 'string' },
    /** internal: run only the echo server of one transport (the benchmark forks itself for it) */
    serve: { type: 'string' },
    url: { type: 'string' },
  } });
const CALLS = Number(values.calls);
const SECONDS = Number(values.seconds);
const out = (s: string) => process.stdout.write(`${s}\n`);
const Echo = defineMessage('bench.echo', z.object({ n: z.int() }), z.object({ n: z.int() }));

/** The PUB/SUB client this transport replaced, reduced to what a call did: a cached NUMSUB probe, then send. */
class OldPubSubClient {
  private readonly client: ClientRedis;
  private readonly probe: Redis;
  private listening = { count: 0, at: 0 };

  constructor(url: string) {
    this.client = new ClientRedis({ ...redisConnectionOptions(url) });
    this.probe = new Redis(url);
  }

  async send(pattern: string, data: unknown): Promise<unknown> {
    if (Date.now() - this.listening.at > 1_000) {
      const [, count] = (await this.probe.pubsub('NUMSUB', pattern)) as [string, number];
      this.listening = { count: Number(count), at: Date.now() };
    }
    if (this.listening.count === 0) throw new Error('unavailable');
    return firstValueFrom(this.client.send(pattern, data).pipe(timeout(10_000)));
  }

  async close() {
    await this.client.close();
    this.probe.disconnect();
  }
}

async function roundTrips(name: string, call: (n: number) => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 200; i++) await call(i); // warm up
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await call(i);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] as number;
  const result = { p50: at(0.5), p99: at(0.99) };
  out(`${name.padEnd(22)} p50 ${result.p50.toFixed(3)} ms   p99 ${result.p99.toFixed(3)} ms   (${CALLS} sequential calls)`);
  return result;
}

/** The echo server of one transport, in a process of its own (as in production), until the parent kills it. */
async function serveEcho(kind: string, url: string) {
  const server =
    kind === 'pubsub'
      ? new ServerRedis({ ...redisConnectionOptions(url) })
      : new StreamsServer({ service: 'query', url, claimIdleMs: 3_000, livenessWindowMs: 3_000 });
  server.addHandler(Echo.pattern, async (data: unknown) => data);
  await new Promise<void>((resolve, reject) => server.listen((error?: unknown) => (error ? reject(error) : resolve())));
  // A clean exit, so `node --cpu-prof` (inherited by this fork) writes the server's profile too.
  process.once('SIGTERM', () => process.exit(0));
  process.send?.('ready');
}

async function echoServer(kind: 'pubsub' | 'streams', url: string): Promise<ChildProcess> {
  const child = fork(process.argv[1] as string, ['--serve', kind, '--url', url], { stdio: 'inherit' });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the ${kind} echo server exited (${code})`)));
  });
  return child;
}

async function pubSub(url: string) {
  const server = await echoServer('pubsub', url);
  const client = new OldPubSubClient(url);
  try {
    return await roundTrips('PUB/SUB (old client)', (n) => client.send(Echo.pattern, { n }));
  } finally {
    await client.close();
    server.kill();
  }
}

async function streams(url: string) {
  const server = await echoServer('streams', url);
  const client = new ServiceClient({ service: 'query', url, timeoutMs: 10_000 });
  try {
    return await roundTrips('Redis Streams', (n) => client.send(Echo, { n }));
  } finally {
    await client.close();
    server.kill();
  }
}

async function throughput(client: ServiceClient, label: string): Promise<number> {
  const countries = ['US', 'GB', 'DE', 'FR', 'JP', 'BR', 'IN', 'CA'];
  const until = performance.now() + SECONDS * 1_000;
  let done = 0;
  const worker = async (w: number) => {
    for (let i = w; performance.now() < until; i += 16) {
      await client.send(QueryMessages.searchAds, { country: countries[i % countries.length], limit: 20 } as never);
      done += 1;
    }
  };
  await Promise.all(Array.from({ length: 16 }, (_, w) => worker(w)));
  const rate = done / SECONDS;
  out(`query-api ${label.padEnd(12)} ${rate.toFixed(0)} search_ads/s (16 in flight, ${SECONDS} s)`);
  return rate;
}

async function queryReplicas(url: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'transport-bench-'));
  const replicas: AppProcess[] = [];
  const client = new ServiceClient({ service: 'query', url, timeoutMs: 30_000 });
  try {
    // One query worker per replica: a replica is one unit of capacity (one CPU), as a pod with a 1-CPU limit.
    const env = { REDIS_URL: url, DATA_DIR: join(dataDir, 'a'), LOG_LEVEL: 'warn', QUERY_WORKERS: '1' };
    execFileSync(process.execPath, [join(WORKSPACE_ROOT, 'dist/apps/query-api/cli.js'), 'seed', '--count', '100000'], {
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    cpSync(join(dataDir, 'a'), join(dataDir, 'b'), { recursive: true });
    replicas.push(await startApp({ name: 'query-api', env, readyPath: '/readyz', timeoutMs: 120_000 }));
    await throughput(client, '(warm-up)');
    const one = await throughput(client, '1 replica');
    replicas.push(await startApp({ name: 'query-api', env: { ...env, DATA_DIR: join(dataDir, 'b') }, readyPath: '/readyz', timeoutMs: 120_000 }));
    await throughput(client, '(warm-up)');
    const two = await throughput(client, '2 replicas');
    return { one, two };
  } finally {
    await client.close();
    for (const replica of replicas) await replica.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  // The transport's one log line per message would measure the console, not the transport.
  Logger.overrideLogger(false);
  if (values.serve && values.url) return serveEcho(values.serve, values.url);
  const redis = await startPrivateRedis();
  try {
    if (values.only === 'pubsub') return void (await pubSub(redis.url));
    if (values.only === 'streams') return void (await streams(redis.url));
    const old = await pubSub(redis.url);
    const next = await streams(redis.url);
    out(`Streams / PUB/SUB round trip: p50 ${(next.p50 / old.p50).toFixed(2)}x   p99 ${(next.p99 / old.p99).toFixed(2)}x   (goal <= 0.7x)`);
    if (values['round-trip-only']) return;
    const { one, two } = await queryReplicas(redis.url);
    out(`query-api 2 replicas / 1 replica: ${(two / one).toFixed(2)}x   (goal >= 1.0x)`);
  } finally {
    await redis.stop();
  }
}

main().then(
  () => {
    if (!values.serve) process.exit(0);
  },
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
