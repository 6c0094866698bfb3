/**
 * Transport benchmark (not a test). In one run, on a private redis-server:
 *  1. p50/p99 of one request/reply round trip (an echo handler in another process, one call at a time) through
 *     the old NestJS PUB/SUB client (a copy of it lives only here, for this comparison), through Streams, and
 *     through bare ioredis on both (the floors: Redis and the wake-ups without any transport code). The four take
 *     turns in blocks of calls, so a busy, shared machine slows them alike;
 *  2. throughput of query-api (`search_ads`, limit 20, 16 and then 48 calls in flight) over the transport with 1 and 2
 *     replicas in turn, three rounds (100,000 seeded ads), each replica with QUERY_WORKERS=0 as the production
 *     overlay runs it (one replica = one thread = one CPU), and per call what the scheduler counted for each process
 *     (replicas, Redis, this load generator): CPU time, time spent runnable but waiting for a core, and wake-ups.
 * Run: npx nx run transport:bench [-- --calls=2000 --seconds=5 --round-trip-only --query-workers=1 --in-flight=16,48 --only=streams]
 */
import 'reflect-metadata';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
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
    seconds: { type: 'string', default: '5' },
    'round-trip-only': { type: 'boolean', default: false },
    /** run one transport's round trip only: pubsub | streams | raw-pubsub | raw-streams (for node --cpu-prof ...) */
    only: { type: 'string' },
    /** query-api replicas' QUERY_WORKERS; 0 as k8s/overlays/production runs them (one replica = one CPU) */
    'query-workers': { type: 'string', default: '0' },
    /** calls in flight in the throughput phases, one series per value: 16 (the e2e bench's connections), 48 (saturates this machine) */
    'in-flight': { type: 'string', default: '16,48' },
    /** seconds the second replica runs under load before it is measured */
    'warm-up': { type: 'string', default: '2' },
    /** internal: run only the echo server of one transport (the benchmark forks itself for it) */
    serve: { type: 'string' },
    url: { type: 'string' },
  } });
const CALLS = Number(values.calls);
const SECONDS = Number(values.seconds);
const IN_FLIGHTS = values['in-flight'].split(',').map(Number);
/** A replica just started runs its first seconds unoptimised (JIT): not measured. */
const WARM_UP_SECONDS = Number(values['warm-up']);
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

interface Transport {
  readonly name: string;
  call(n: number): Promise<unknown>;
  close(): Promise<void>;
}

interface Percentiles {
  readonly p50: number;
  readonly p99: number;
}

const BLOCK = 20;

/**
 * Calls run one at a time. The transports take turns in blocks of BLOCK calls (the first of each block not
 * measured), so both see the same moments of a busy, shared machine and the ratio holds while absolute times
 * drift; within a block a call follows a call of the same transport, so neither pays for the other's leftovers.
 */
async function roundTrips(transports: Transport[]): Promise<Percentiles[]> {
  for (let i = 0; i < 200; i++) for (const transport of transports) await transport.call(i); // warm up
  const samples = transports.map((): number[] => []);
  for (let block = 0; block * BLOCK < CALLS; block++) {
    for (let k = 0; k < transports.length; k++) {
      const which = (block + k) % transports.length;
      const transport = transports[which] as Transport;
      await transport.call(0);
      for (let i = 0; i < BLOCK; i++) {
        const started = performance.now();
        await transport.call(i);
        (samples[which] as number[]).push(performance.now() - started);
      }
    }
  }
  return transports.map((transport, which) => {
    const sorted = (samples[which] as number[]).sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
    const result = { p50: at(0.5), p99: at(0.99) };
    out(`${transport.name.padEnd(22)} p50 ${result.p50.toFixed(3)} ms   p99 ${result.p99.toFixed(3)} ms   (${CALLS} sequential calls)`);
    return result;
  });
}

/** The echo server of one transport, in a process of its own (as in production), until the parent kills it. */
async function serveEcho(kind: string, url: string) {
  if (kind === 'raw-pubsub' || kind === 'raw-streams') {
    await (kind === 'raw-pubsub' ? serveRawPubSub(url) : serveRawStreams(url));
  } else {
    const server =
      kind === 'pubsub'
        ? new ServerRedis({ ...redisConnectionOptions(url) })
        : new StreamsServer({ service: 'query', url, claimIdleMs: 3_000, livenessWindowMs: 3_000 });
    server.addHandler(Echo.pattern, async (data: unknown) => data);
    await new Promise<void>((resolve, reject) => void server.listen((error?: unknown) => (error ? reject(error) : resolve())));
  }
  // A clean exit, so `node --cpu-prof` (inherited by this fork) writes the server's profile too.
  process.once('SIGTERM', () => process.exit(0));
  process.send?.('ready');
}

/*
 * The floors: the same round trips with bare ioredis (no Nest, no zod, no rxjs, no metadata, no deadline),
 * to show how much of each round trip is the transport's own work and how much is Redis and the wake-ups.
 */
const RAW = { requests: 'bench:raw:requests', group: 'bench', channel: 'bench:raw', replyChannel: 'bench:raw:reply' };

/** Echo over Streams: XREADGROUP, then the reply (XADD) and the XACK in one pipeline. */
async function serveRawStreams(url: string) {
  const commands = new Redis(url);
  const reader = new Redis(url);
  await commands.xgroup('CREATE', RAW.requests, RAW.group, '$', 'MKSTREAM');
  void (async () => {
    for (;;) {
      const reply = (await reader.xreadgroup('GROUP', RAW.group, 'c', 'COUNT', 32, 'BLOCK', 1_000, 'STREAMS', RAW.requests, '>')) as
        | [string, [string, string[]][]][]
        | null;
      for (const [, entries] of reply ?? []) {
        for (const [id, [, inbox, , body]] of entries as [string, [string, string, string, string]][]) {
          void commands.pipeline().xadd(inbox, '*', 'b', body).xack(RAW.requests, RAW.group, id).exec();
        }
      }
    }
  })();
}

/** Echo over PUB/SUB: every message on the request channel answered on the reply channel. */
async function serveRawPubSub(url: string) {
  const subscriber = new Redis(url);
  const publisher = new Redis(url);
  subscriber.on('message', (_channel: string, body: string) => void publisher.publish(RAW.replyChannel, body));
  await subscriber.subscribe(RAW.channel);
}

/** XADD the request; one blocking XREAD loop on this client's inbox stream for the life of the client. */
function rawStreamsClient(url: string): Transport {
  const commands = new Redis(url);
  const reader = new Redis(url);
  const inbox = `bench:raw:inbox:${process.pid}`;
  let waiting: (() => void) | undefined;
  let closed = false;
  void (async () => {
    let last = '0-0';
    while (!closed) {
      const reply = (await reader.xread('COUNT', 256, 'BLOCK', 0, 'STREAMS', inbox, last).catch(() => null)) as [string, [string, string[]][]][] | null;
      for (const [, entries] of reply ?? []) {
        for (const [id] of entries) {
          last = id;
          waiting?.();
        }
      }
    }
  })();
  return {
    name: 'bare ioredis Streams',
    call: (n) =>
      new Promise<void>((resolve) => {
        waiting = resolve;
        void commands.xadd(RAW.requests, '*', 'to', inbox, 'b', JSON.stringify({ n }));
      }),
    close: async () => {
      closed = true;
      commands.disconnect();
      reader.disconnect();
    },
  };
}

/** What ClientRedis does per call: SUBSCRIBE to the reply channel, PUBLISH, take the reply, UNSUBSCRIBE. */
function rawPubSubClient(url: string): Transport {
  const publisher = new Redis(url);
  const subscriber = new Redis(url);
  let waiting: (() => void) | undefined;
  subscriber.on('message', () => waiting?.());
  return {
    name: 'bare ioredis PUB/SUB',
    call: async (n) => {
      await subscriber.subscribe(RAW.replyChannel);
      await new Promise<void>((resolve) => {
        waiting = resolve;
        void publisher.publish(RAW.channel, JSON.stringify({ n }));
      });
      void subscriber.unsubscribe(RAW.replyChannel);
    },
    close: async () => {
      publisher.disconnect();
      subscriber.disconnect();
    },
  };
}

async function echoServer(kind: Kind, url: string): Promise<ChildProcess> {
  const child = fork(process.argv[1] as string, ['--serve', kind, '--url', url], { stdio: 'inherit' });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the ${kind} echo server exited (${code})`)));
  });
  return child;
}

async function pubSub(url: string): Promise<Transport> {
  const server = await echoServer('pubsub', url);
  const client = new OldPubSubClient(url);
  return {
    name: 'PUB/SUB (old client)',
    call: (n) => client.send(Echo.pattern, { n }),
    close: async () => {
      await client.close();
      server.kill();
    },
  };
}

async function streams(url: string): Promise<Transport> {
  const server = await echoServer('streams', url);
  const client = new ServiceClient({ service: 'query', url, timeoutMs: 10_000 });
  return {
    name: 'Redis Streams',
    call: (n) => client.send(Echo, { n }),
    close: async () => {
      await client.close();
      server.kill();
    },
  };
}

type Kind = 'pubsub' | 'streams' | 'raw-pubsub' | 'raw-streams';

async function open(kind: Kind, url: string): Promise<Transport> {
  if (kind === 'pubsub') return pubSub(url);
  if (kind === 'streams') return streams(url);
  const server = await echoServer(kind, url);
  const client = kind === 'raw-pubsub' ? rawPubSubClient(url) : rawStreamsClient(url);
  return {
    ...client,
    close: async () => {
      await client.close();
      server.kill();
    },
  };
}

/** Runs the round trips of the named transports side by side; returns their percentiles in the same order. */
async function compare(url: string, kinds: Kind[]): Promise<Percentiles[]> {
  const transports: Transport[] = [];
  try {
    for (const kind of kinds) transports.push(await open(kind, url));
    return await roundTrips(transports);
  } finally {
    for (const transport of transports) await transport.close();
  }
}

/** A search_ads whose reply the load generator parses but does not validate: the bench measures query-api. */
const SearchAdsUnchecked = { ...QueryMessages.searchAds, response: z.unknown() };

interface Phase {
  readonly rate: number;
}

/**
 * What the scheduler counted for a process so far, summed over its threads (/proc/<pid>/task/<tid>/schedstat,
 * in nanoseconds, exact rather than sampled at clock ticks): seconds on a CPU, seconds runnable but waiting for
 * one (the cost of sharing the machine's cores), and voluntary sleeps (each one a later wake-up).
 */
function scheduled(pid: number | 'self'): { cpu: number; waiting: number; wakeUps: number } {
  const total = { cpu: 0, waiting: 0, wakeUps: 0 };
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const [cpu, waiting] = readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ').map(Number);
    total.cpu += (cpu ?? 0) / 1e9;
    total.waiting += (waiting ?? 0) / 1e9;
    total.wakeUps += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8'))?.[1] ?? 0);
  }
  return total;
}

/** Busy and total CPU seconds of the whole machine (every core, every process, other users' included). */
function machineSeconds(): { busy: number; total: number } {
  const [, ...ticks] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return { busy: (total - idle) / 100, total: total / 100 };
}

/**
 * The machine facts the ratios depend on. On a virtual machine whose kernel does not poll before halting an idle
 * CPU (haltpoll's guest_halt_poll_ns = 0), every wake-up of a sleeping process is an exit to the hypervisor, and
 * the round trip with fewer hops wins by more: the README compares runs with polling off and on.
 */
function machineConditions(): string {
  const cpus = `machine: ${availableParallelism()} CPUs`;
  let haltPollNs: string;
  try {
    haltPollNs = readFileSync('/sys/module/haltpoll/parameters/guest_halt_poll_ns', 'utf8').trim();
  } catch {
    return cpus; // not a virtual machine with the haltpoll driver
  }
  return `${cpus}, guest halt polling ${haltPollNs} ns${haltPollNs === '0' ? ' (an idle CPU halts at once: each wake-up exits to the hypervisor)' : ''}`;
}

/** How many times Redis has run each command so far (INFO commandstats). */
async function commandCounts(redis: Redis): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const [, name, calls] of (await redis.info('commandstats')).matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)) counts.set(name as string, Number(calls));
  return counts;
}

/**
 * `inFlight` calls in flight for SECONDS; prints the rate and, per call, what each replica, Redis and this load
 * generator cost (CPU, waiting for a core, wake-ups), and how busy the machine's cores were (other users included).
 */
async function throughput(
  client: ServiceClient,
  label: string,
  inFlight: number,
  replicas: AppProcess[],
  redis: { pid: number; probe: Redis },
  phaseSeconds = SECONDS,
): Promise<Phase> {
  const commandsBefore = await commandCounts(redis.probe);
  const countries = ['US', 'GB', 'DE', 'FR', 'JP', 'BR', 'IN', 'CA'];
  const processes: (number | 'self')[] = [...replicas.map((replica) => replica.pid), redis.pid, 'self'];
  const before = { scheduled: processes.map(scheduled), machine: machineSeconds() };
  const started = performance.now();
  const until = started + phaseSeconds * 1_000;
  let done = 0;
  const worker = async (w: number) => {
    for (let i = w; performance.now() < until; i += inFlight) {
      await client.send(SearchAdsUnchecked, { country: countries[i % countries.length], limit: 20 } as never);
      done += 1;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, (_, w) => worker(w)));
  const seconds = (performance.now() - started) / 1_000;
  const rate = done / seconds;
  const spent = processes.map(scheduled).map((after, i) => {
    const then = before.scheduled[i] as typeof after;
    return { cpu: after.cpu - then.cpu, waiting: after.waiting - then.waiting, wakeUps: after.wakeUps - then.wakeUps };
  });
  // Per call, one figure per process: each query-api replica, then Redis, then this load generator.
  const perCall = (pick: (s: (typeof spent)[number]) => number, scale: number) => spent.map((s) => ((pick(s) * scale) / done).toFixed(2)).join(' / ');
  const machine = machineSeconds();
  const cores = (machine.busy - before.machine.busy) / seconds;
  const commandsAfter = await commandCounts(redis.probe);
  const reads = ((commandsAfter.get('xreadgroup') ?? 0) - (commandsBefore.get('xreadgroup') ?? 0)) / done;
  out(
    `query-api ${label.padEnd(22)} ${rate.toFixed(0).padStart(5)} search_ads/s   per call (query-api ${replicas.length === 1 ? '' : 'each, '}/ redis / load generator): ` +
      `CPU ms ${perCall((s) => s.cpu, 1_000)}, waiting for a CPU ms ${perCall((s) => s.waiting, 1_000)}, wake-ups ${perCall((s) => s.wakeUps, 1)}; ` +
      `machine busy ${cores.toFixed(2)} of ${((machine.total - before.machine.total) / seconds).toFixed(1)} cores; XREADGROUP per call ${reads.toFixed(2)}`,
  );
  return { rate };
}

/**
 * Throughput of query-api with 1 and 2 replicas, alternating 1, 2, 1, 2, 1, 2 (the second replica started and
 * stopped in turn): on a shared machine the load of other processes drifts within seconds, and alternating
 * exposes both counts to it alike. The ratio is the sum of the 2-replica rates over the sum of the 1-replica ones.
 * One series per in-flight count: 16 leaves two replicas idle part of the time on this machine, 48 keeps it busy.
 */
async function queryReplicas(url: string, workers: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'transport-bench-'));
  const replicas: AppProcess[] = [];
  const client = new ServiceClient({ service: 'query', url, timeoutMs: 30_000 });
  const probe = new Redis(url);
  try {
    const broker = { pid: Number(/process_id:(\d+)/.exec(await probe.info('server'))?.[1]), probe };
    const env = { REDIS_URL: url, DATA_DIR: join(dataDir, 'a'), LOG_LEVEL: 'warn', QUERY_WORKERS: workers };
    execFileSync(process.execPath, [join(WORKSPACE_ROOT, 'dist/apps/query-api/cli.js'), 'seed', '--count', '100000'], {
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    cpSync(join(dataDir, 'a'), join(dataDir, 'b'), { recursive: true });
    replicas.push(await startApp({ name: 'query-api', env, readyPath: '/readyz' }));
    await throughput(client, '(warm-up)', IN_FLIGHTS[0] ?? 16, replicas, broker);
    const series: { inFlight: number; one: number; two: number }[] = [];
    for (const inFlight of IN_FLIGHTS) {
      out(`${inFlight} calls in flight:`);
      const rates = { inFlight, one: 0, two: 0 };
      for (let round = 1; round <= 3; round++) {
        rates.one += (await throughput(client, `1 replica  (round ${round})`, inFlight, replicas, broker)).rate;
        replicas.push(await startApp({ name: 'query-api', env: { ...env, DATA_DIR: join(dataDir, 'b') }, readyPath: '/readyz' }));
        await throughput(client, '(warm-up)', inFlight, replicas, broker, WARM_UP_SECONDS);
        rates.two += (await throughput(client, `2 replicas (round ${round})`, inFlight, replicas, broker)).rate;
        await (replicas.pop() as AppProcess).stop();
      }
      series.push(rates);
    }
    return series;
  } finally {
    probe.disconnect();
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
    out(machineConditions());
    if (values.only) return void (await compare(redis.url, [values.only as Kind]));
    const [old, next, rawPubSub, rawStreams] = (await compare(redis.url, ['pubsub', 'streams', 'raw-pubsub', 'raw-streams'])) as Percentiles[] as [
      Percentiles,
      Percentiles,
      Percentiles,
      Percentiles,
    ];
    out(`Streams / PUB/SUB round trip: p50 ${(next.p50 / old.p50).toFixed(2)}x   p99 ${(next.p99 / old.p99).toFixed(2)}x   (goal <= 0.7x)`);
    out(
      `  floors, bare ioredis: Streams / old PUB/SUB client p50 ${(rawStreams.p50 / old.p50).toFixed(2)}x, ` +
        `Streams / PUB/SUB ${(rawStreams.p50 / rawPubSub.p50).toFixed(2)}x; ` +
        `the transport's own work per round trip: Streams ${((next.p50 - rawStreams.p50) * 1_000).toFixed(0)} us, ` +
        `old PUB/SUB client ${((old.p50 - rawPubSub.p50) * 1_000).toFixed(0)} us (p50 differences)`,
    );
    if (values['round-trip-only']) return;
    const workers = values['query-workers'];
    out(`query-api replicas with QUERY_WORKERS=${workers}${workers === '0' ? ' (as the production overlay: one replica = one CPU)' : ''}`);
    for (const { inFlight, one, two } of await queryReplicas(redis.url, workers)) {
      out(`query-api 2 replicas / 1 replica, ${inFlight} in flight: ${(two / one).toFixed(2)}x   (goal >= 1.0x)`);
    }
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
