/**
 * Live-data benchmark (not a test): the built stack on a large demo store, serving a steady query load (REST
 * search_ads and get_trends at a fixed rate, half of what it serves saturated unless --query-rate says) while
 * sightings (30% new ads by default, the rest re-sightings) are XADDed to the ingest stream at rising rates. For each
 * rate it prints freshness (XADD to visible through the public API, sampled on new ads) p50/p95, the queries' p95 against the
 * same queries with no ingest, query-api's CPU per sighting, and whether the rate was sustained (the group's backlog
 * at the end of the step). Goal (issue 27): at least 1,000 sightings/s with freshness p95 <= 5 s and query p95 <= 1.5x
 * idle; search_ads p95 <= 3x its one-at-a-time p50. Last, a control: the same query load with no ingest beside a
 * process burning the CPU the last rate added on the machine, which tells what sharing the cores costs the queries by itself.
 * `--new-share` sets the share of new ads (0.3 by default; a contract-like mix is 0.05), `--new-ids=among` gives them
 * ids among the stored ones, as real platforms' ids fall (default `after`: they sort after every stored id). A fixed
 * calibration loop runs first and last (libs/testing calibration.ts), so figures from different hours compare.
 * Run: npx nx run e2e:live-bench [-- --ads=1000000 --rates=250,500,1000 --seconds=20 --new-share=0.3 --new-ids=after --data-dir=tmp/e2e-bench/ads-1000000]
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from '@adintel/redis';
import { calibrationMs, WORKSPACE_ROOT } from '@adintel/testing';
import { newAgentToken } from '../test/agent';
import { type Stack, startStack } from '../test/stack';
import { appCpuMs, appThreadCpuMs, appWrittenBytes, redisCpuMs, threadCpuBetween, type ThreadTimes } from './process-stats';
import { meanBetween, readMetrics, type Reading } from './stage-times';

const out = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
};
const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(1)} ms` : 'n/a');

/** The public calls of the steady load: searches with the filters agents send, and trends. */
const SEARCHES = [
  '/api/v1/ads?country=US&limit=20',
  '/api/v1/ads?creative_categories=gambling_and_betting&country=BR&limit=20',
  '/api/v1/ads?status_today=active&platforms=tiktok&limit=20',
  '/api/v1/ads?q=bonus&limit=20',
];
const TRENDS = ['/api/v1/analytics/trends/geo', '/api/v1/analytics/trends/advertisers/cards?country=US'];
/** How many new ads the freshness probe watches at once, and how often it polls: a load that freshness never grows. */
const WATCHED_AT_ONCE = 4;
const PROBE_POLLS_PER_SECOND = 20;

interface Latencies {
  search: number[];
  trends: number[];
  errors: number;
}

/** Calls at a fixed rate (one every 1000/rate ms, not waiting for answers), 1 in 8 a trend, for `seconds`. */
async function steadyLoad(baseUrl: string, token: string, rate: number, seconds: number): Promise<Latencies> {
  const result: Latencies = { search: [], trends: [], errors: 0 };
  const calls: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; performance.now() - started < seconds * 1000; i++) {
    const trend = i % 8 === 7;
    const path = trend ? (TRENDS[i % TRENDS.length] as string) : (SEARCHES[i % SEARCHES.length] as string);
    const at = performance.now();
    calls.push(
      fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } }).then(
        async (res) => {
          await res.arrayBuffer();
          if (res.status !== 200) result.errors++;
          else (trend ? result.trends : result.search).push(performance.now() - at);
        },
        () => void result.errors++,
      ),
    );
    const next = started + ((i + 1) * 1000) / rate;
    await sleep(Math.max(0, next - performance.now()));
  }
  await Promise.all(calls);
  return result;
}

/** One call at a time for `seconds`: the p50 the queueing goal is stated against. */
async function oneAtATime(baseUrl: string, token: string, seconds: number): Promise<number[]> {
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; performance.now() - started < seconds * 1000; i++) {
    const at = performance.now();
    const res = await fetch(`${baseUrl}${SEARCHES[i % SEARCHES.length]}`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    latencies.push(performance.now() - at);
  }
  return latencies;
}

/** Searches as fast as 16 callers go for `seconds`: what the stack serves saturated, per second. */
async function saturated(baseUrl: string, token: string, seconds: number): Promise<number> {
  let done = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: 16 }, async (_, k) => {
      for (let i = k; performance.now() < until; i += 16) {
        const res = await fetch(`${baseUrl}${SEARCHES[i % SEARCHES.length]}`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        done++;
      }
    }),
  );
  return done / seconds;
}

async function main() {
  const { values } = parseArgs({
    options: {
      ads: { type: 'string', default: '1000000' },
      rates: { type: 'string', default: '250,500,1000,2000' },
      seconds: { type: 'string', default: '20' },
      'query-rate': { type: 'string' },
      'query-workers': { type: 'string', default: '2' },
      'data-dir': { type: 'string' },
      'new-share': { type: 'string', default: '0.3' },
      'new-ids': { type: 'string', default: 'after' },
      stream: { type: 'string', default: 'ingest:ads' },
      /** query-api's INGEST_BATCH_INTERVAL_MS (its own default unless given). */
      'batch-interval-ms': { type: 'string' },
      /** Writes V8 CPU profiles of query-api's threads to this folder when the stack stops (bench/cpu-profile-top.ts). */
      'profile-query-api': { type: 'string' },
    },
  });
  const ads = Number(values.ads);
  const seconds = Number(values.seconds);
  const rates = values.rates.split(',').map(Number);
  const newShare = values['new-share'];
  const queryDataDir = resolve(values['data-dir'] ?? join(WORKSPACE_ROOT, 'tmp', 'e2e-bench', `ads-${ads}`));
  mkdirSync(queryDataDir, { recursive: true });
  out(
    `# live bench: ${ads} demo ads in ${queryDataDir} (seeded unless already there), rates ${rates.join(', ')} sightings/s, ${seconds} s each, ` +
      `${Number(newShare) * 100}% new ads, their ids ${values['new-ids']} the stored ones` +
      (values['batch-interval-ms'] ? `, INGEST_BATCH_INTERVAL_MS=${values['batch-interval-ms']}` : ''),
  );
  out(`# ${new Date().toISOString()}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}; calibration ${calibrationMs().toFixed(0)} ms CPU (SHA-1 over 64 MB)`);
  const stack = await startStack({
    ads,
    queryDataDir,
    queryWorkers: Number(values['query-workers']),
    logLevel: 'warn',
    rateLimit: { perMinute: 1_000_000, burst: 1_000_000 },
    trialAllowance: 1_000_000_000,
    appEnv: {
      'query-api': {
        INGEST_STREAM: values.stream,
        ...(values['batch-interval-ms'] ? { INGEST_BATCH_INTERVAL_MS: values['batch-interval-ms'] } : {}),
        ...(values['profile-query-api'] ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${resolve(values['profile-query-api'])}` } : {}),
      },
    },
  });
  const redis = new Redis(stack.redisUrl);
  let probe: FreshnessProbe | undefined;
  try {
    const ndjson = readdirSync(queryDataDir).find((f) => /^demo-ads-\d+\.ndjson$/.test(f));
    if (!ndjson) throw new Error(`no demo NDJSON in ${queryDataDir}`);
    const total = rates.reduce((sum, rate) => sum + rate * seconds, 0);
    out(`# preparing ${total} sightings from ${ndjson}...`);
    // query-api's CLI makes them (new ads and re-sightings of the store's ads), one NDJSON line each.
    const file = join(queryDataDir, 'bench-sightings.ndjson');
    execFileSync(
      process.execPath,
      [join(WORKSPACE_ROOT, 'dist/apps/query-api/cli.js'), 'sightings', '--from', join(queryDataDir, ndjson), '--count', String(total)]
        .concat(['--seed', String(Date.now() % 100_000), '--new-share', newShare, '--new-ids', values['new-ids'], '--out', file]),
      { stdio: 'inherit' },
    );
    const sightings = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((text) => ({ id: (JSON.parse(text) as { id: string }).id, text }));

    // After the sightings are made: a keep-alive connection left idle longer than the server keeps it is closed under
    // the next request ("other side closed").
    const { token } = await newAgentToken(stack.baseUrl);
    const single = await oneAtATime(stack.baseUrl, token, 5);
    const saturation = await saturated(stack.baseUrl, token, 5);
    const queryRate = values['query-rate'] ? Number(values['query-rate']) : Math.max(1, Math.round(saturation / 2));
    out(`search_ads one at a time: p50 ${ms(pct(single, 50))}; saturated: ${saturation.toFixed(0)} searches/s; steady load: ${queryRate} calls/s`);
    const queryPid = stack.apps['query-api'].pid;
    // Every process of the stack (the four apps and Redis): what the steady load leaves of the machine's cores.
    const stackCpuMs = async () => Object.values(stack.apps).reduce((sum, app) => sum + appCpuMs(app.pid), 0) + (await redisCpuMs(redis));
    // The seed's ads are `ad_<n>` (demo-generator.ts); a new ad's id is anything else (demo-sightings.ts).
    const isNew = (id: string) => !/^ad_\d+$/.test(id);
    const knownId = sightings.find((line) => !isNew(line.id))?.id;
    if (!knownId) throw new Error('the sightings hold no re-sighting of a stored ad');
    probe = new FreshnessProbe(stack.baseUrl, token, knownId);
    // This process's own CPU: the query load's, and while a rate runs the producer's and the probe's as well.
    const ownCpuMs = () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    };
    let cpu = appCpuMs(queryPid);
    const stackCpu = await stackCpuMs();
    const ownCpu = ownCpuMs();
    let reading = await readStack(stack);
    let threads = appThreadCpuMs(queryPid);
    const idle = await steadyLoad(stack.baseUrl, token, queryRate, seconds);
    const stages: string[] = [`idle: ${stageLine(reading, (reading = await readStack(stack)))}`, `idle: ${threadTimes(threads, appThreadCpuMs(queryPid), seconds)}`];
    const idleCpu = (appCpuMs(queryPid) - cpu) / seconds;
    const idleStackCpu = ((await stackCpuMs()) - stackCpu) / seconds;
    const idleOwnCpu = (ownCpuMs() - ownCpu) / seconds;
    out(
      `idle: search p50 ${ms(pct(idle.search, 50))} p95 ${ms(pct(idle.search, 95))}, trends p95 ${ms(pct(idle.trends, 95))}, errors ${idle.errors}; ` +
        `query-api CPU ${idleCpu.toFixed(0)} ms/s, the whole stack ${idleStackCpu.toFixed(0)} ms/s of the machine's ${availableParallelism() * 1000}`,
    );
    out('');
    out('| sightings/s | freshness p50 | freshness p95 | search p95 (x idle) | trends p95 (x idle) | search p95 / one-at-a-time p50 | query-api CPU per sighting | backlog at end |');
    out('|---:|---:|---:|---:|---:|---:|---:|---:|');

    let next = 0;
    let ingestCpuPerSecond = 0;
    let machineIngestCpuPerSecond = 0;
    // The store's write-ahead log: it must start over as batches land, not grow with them.
    const walBytes = () => statSync(join(queryDataDir, 'ads.sqlite-wal'), { throwIfNoEntry: false })?.size ?? 0;
    for (const rate of rates) {
      let walPeak = 0;
      cpu = appCpuMs(queryPid);
      const stackBefore = await stackCpuMs();
      const ownBefore = ownCpuMs();
      const threadsBefore = appThreadCpuMs(queryPid);
      const writtenBefore = appWrittenBytes(queryPid);
      reading = await readStack(stack);
      const load = steadyLoad(stack.baseUrl, token, queryRate, seconds);
      const started = performance.now();
      let sent = 0;
      // XADD in ticks of 50 ms; the probe watches new ads as it has room.
      while (performance.now() - started < seconds * 1000) {
        const due = Math.floor(((performance.now() - started) / 1000) * rate);
        const pipeline = redis.pipeline();
        const watched: string[] = [];
        for (; sent < due && next < sightings.length; sent++, next++) {
          const line = sightings[next];
          if (!line) break;
          pipeline.xadd(values.stream, '*', 'line', line.text);
          if (isNew(line.id) && probe.watching + watched.length < WATCHED_AT_ONCE) watched.push(line.id);
        }
        const at = performance.now();
        await pipeline.exec();
        for (const id of watched) probe.watch(id, at);
        walPeak = Math.max(walPeak, walBytes());
        await sleep(50);
      }
      const queries = await load;
      const freshness = await probe.step();
      stages.push(`${rate}/s: ${stageLine(reading, await readStack(stack))}; write-ahead log at most ${(walPeak / 1e6).toFixed(0)} MB`);
      const stepCpu = appCpuMs(queryPid) - cpu - idleCpu * seconds;
      // Per thread (the steady query load's CPU included: compare with the idle line), and bytes written.
      const perThread = threadCpuBetween(threadsBefore, appThreadCpuMs(queryPid))
        .map(([thread, spent]) => `${thread} ${((spent * 1000) / Math.max(1, sent)).toFixed(0)} µs`)
        .join(', ');
      const written = (appWrittenBytes(queryPid) - writtenBefore) / Math.max(1, sent);
      stages.push(`${rate}/s: CPU per sighting by thread (query load included): ${perThread}; ${(written / 1000).toFixed(1)} KB written per sighting`);
      stages.push(`${rate}/s: ${threadTimes(threadsBefore, appThreadCpuMs(queryPid), seconds)}`);
      ingestCpuPerSecond = stepCpu / seconds;
      // What the rate added on the machine: every app, Redis, the producer and the probe (each beyond the idle step).
      machineIngestCpuPerSecond =
        ((await stackCpuMs()) - stackBefore + ownCpuMs() - ownBefore) / seconds - idleStackCpu - idleOwnCpu;
      const groups = (await redis.call('XINFO', 'GROUPS', values.stream)) as unknown[][];
      const backlog = groups.map((g) => {
        const fields = new Map<string, unknown>();
        for (let i = 0; i < g.length; i += 2) fields.set(String(g[i]), g[i + 1]);
        return Number(fields.get('lag') ?? 0) + Number(fields.get('pending') ?? 0);
      });
      out(
        `| ${rate} | ${ms(pct(freshness, 50))} | ${ms(pct(freshness, 95))} | ${ms(pct(queries.search, 95))} (${(pct(queries.search, 95) / pct(idle.search, 95)).toFixed(2)}x) | ` +
          `${ms(pct(queries.trends, 95))} (${(pct(queries.trends, 95) / pct(idle.trends, 95)).toFixed(2)}x) | ` +
          `${(pct(queries.search, 95) / pct(single, 50)).toFixed(1)}x | ${(stepCpu / Math.max(1, sent)).toFixed(2)} ms | ${backlog.join(', ')} |`,
      );
      // Let the backlog drain before the next rate, so each step starts even.
      for (let wait = 0; wait < 60 && (await backlogOf(redis, values.stream)) > 0; wait++) await sleep(1_000);
    }

    // The control: no ingest, and beside the same query load processes that burn the CPU the last rate added on the
    // machine (query-api's share of it alone left out Redis, the other apps, the producer and the probe). If the
    // queries suffer as much, what they suffer from is sharing two cores, not how ingest does its work.
    const burner = burnCpu(machineIngestCpuPerSecond);
    let control: Latencies;
    reading = await readStack(stack);
    threads = appThreadCpuMs(queryPid);
    try {
      control = await steadyLoad(stack.baseUrl, token, queryRate, seconds);
    } finally {
      burner.kill();
    }
    stages.push(`control: ${stageLine(reading, await readStack(stack))}`, `control: ${threadTimes(threads, appThreadCpuMs(queryPid), seconds)}`);
    out('');
    out(
      `control, no ingest, burners taking ${machineIngestCpuPerSecond.toFixed(0)} ms of CPU a second (what the last rate added on the machine; ` +
        `query-api's share ${ingestCpuPerSecond.toFixed(0)}): search p95 ${ms(pct(control.search, 95))} ` +
        `(${(pct(control.search, 95) / pct(idle.search, 95)).toFixed(2)}x idle), trends p95 ${ms(pct(control.trends, 95))} ` +
        `(${(pct(control.trends, 95) / pct(idle.trends, 95)).toFixed(2)}x idle), search p95 / one-at-a-time p50 ${(pct(control.search, 95) / pct(single, 50)).toFixed(1)}x`,
    );
    out('');
    for (const line of stages) out(`- ${line}`);
    out(`# calibration at the end ${calibrationMs().toFixed(0)} ms CPU; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  } finally {
    await probe?.stop();
    redis.disconnect();
    await stack.stop();
  }
}

/** query-api's threads over a step, ms a second: CPU, and time ready to run but waiting for a core. */
function threadTimes(before: Map<number, ThreadTimes>, after: Map<number, ThreadTimes>, seconds: number): string {
  const perSecond = (of: 'ms' | 'waitMs') =>
    threadCpuBetween(before, after, of)
      .map(([thread, spent]) => `${thread} ${(spent / seconds).toFixed(0)}`)
      .join(', ');
  return `query-api's threads, ms a second: CPU ${perSecond('ms')}; waiting for a core ${perSecond('waitMs')}`;
}

/**
 * Child processes that together burn `msPerSecond` of CPU a second: each is busy for its share of every 20 ms and
 * sleeps the rest (one process per core's worth).
 */
function burnCpu(msPerSecond: number): { kill(): void } {
  const children: ChildProcess[] = [];
  for (let left = msPerSecond; left > 0; left -= 1000) {
    const busy = Math.min(20, (Math.min(left, 1000) / 1000) * 20);
    const code = `const busy=${busy};setInterval(()=>{const end=performance.now()+busy;while(performance.now()<end);},20);`;
    children.push(spawn(process.execPath, ['-e', code], { stdio: 'ignore' }));
  }
  return { kill: () => children.forEach((c) => c.kill('SIGKILL')) };
}

/** The gateway's and query-api's metrics at one moment. */
interface StackReading {
  readonly gateway: Reading;
  readonly query: Reading;
  /** performance.now() when read. */
  readonly at: number;
}

async function readStack(stack: Stack): Promise<StackReading> {
  const [gateway, query] = await Promise.all([readMetrics(stack.apps['mcp-gateway'].url), readMetrics(stack.apps['query-api'].url)]);
  return { gateway, query, at: performance.now() };
}

/**
 * Where search_ads's time went between two readings, as means of each hop: the tool call at the gateway, of it the
 * round trip to query-api, of that query-api's handler, of that the store (the worker pool, its queue included);
 * the metering round trips; every tool call a second (the freshness probe's polls included); and the event loops'
 * p99 delay since the last reading.
 */
function stageLine(before: StackReading, after: StackReading): string {
  // A step lasts longer than its load when it waits for the last watched ads.
  const seconds = (after.at - before.at) / 1000;
  // Latencies are recorded in seconds and printed in ms.
  const inMs = ({ mean, calls }: { mean: number; calls: number }) => ({ ms: mean * 1000, calls });
  const gateway = (metric: string, labels: string[]) => inMs(meanBetween(before.gateway, after.gateway, metric, labels));
  const query = (metric: string, labels: string[]) => inMs(meanBetween(before.query, after.query, metric, labels));
  const transport = 'adintel_transport_message_duration_seconds';
  const search = 'pattern="query.ads.search"';
  const tool = gateway('adintel_tool_call_duration_seconds', ['tool="search_ads"']);
  const sent = gateway(transport, ['direction="sent"', search]);
  const handled = query(transport, ['direction="handled"', search]);
  const store = query('adintel_store_query_duration_seconds', ['operation="searchAds"']);
  const metering = gateway(transport, ['direction="sent"', 'pattern="metering.']);
  const calls = gateway('adintel_tool_call_duration_seconds', []).calls / seconds;
  // query-api's store time a second by operation, the largest first: what the load (and ingest) asks of the workers.
  const operations = new Map<string, number>();
  for (const key of after.query.series.keys()) {
    const operation = /^adintel_store_query_duration_seconds\{.*operation="([^"]+)"/.exec(key)?.[1];
    if (!operation || operations.has(operation)) continue;
    const { ms: mean, calls } = query('adintel_store_query_duration_seconds', [`operation="${operation}"`]);
    if (calls > 0) operations.set(operation, (mean * calls) / seconds);
  }
  const batches = query('adintel_ingest_batch_duration_seconds', []);
  const batchSize = meanBetween(before.query, after.query, 'adintel_ingest_batch_size', []).mean;
  const busiest = [...operations].sort((a, b) => b[1] - a[1]).slice(0, 4);
  const lag = (reading: Reading) => ms((reading.gauges.get('nodejs_eventloop_lag_p99_seconds') ?? Number.NaN) * 1000);
  return (
    `search_ads means: tool call ${ms(tool.ms)} > to query-api ${ms(sent.ms)} > handler ${ms(handled.ms)} > store ${ms(store.ms)}; ` +
    `metering round trip ${ms(metering.ms)}; ${calls.toFixed(0)} tool calls/s; event loop p99: gateway ${lag(after.gateway)}, query-api ${lag(after.query)}; ` +
    (batches.calls > 0 ? `${batches.calls} live batches of ${batchSize.toFixed(0)} sightings, ${ms(batches.ms)} each; ` : '') +
    `store ms/s: ${busiest.map(([operation, total]) => `${operation} ${total.toFixed(0)}`).join(', ')}`
  );
}

/**
 * Freshness, XADD to visible through the public API. Up to WATCHED_AT_ONCE new ads are watched at a time, polled in
 * turn (GET /api/v1/ads/{id}) at a fixed PROBE_POLLS_PER_SECOND, and with none to watch (no ingest: the idle and
 * control steps) it polls a stored ad: every step carries the same probe load, and a slow step does not bring more
 * polls on itself (polling each watched ad until it answers once made ~550 calls a second when freshness slipped).
 */
class FreshnessProbe {
  private readonly watched: { id: string; since: number }[] = [];
  private seen: number[] = [];
  private turn = 0;
  private readonly polling: Promise<void>;
  private stopped = false;

  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    private readonly knownId: string,
  ) {
    this.polling = this.poll();
  }

  get watching(): number {
    return this.watched.length;
  }

  /** Watches a new ad XADDed at `since` (performance.now()). */
  watch(id: string, since: number): void {
    this.watched.push({ id, since });
  }

  /** Waits (at most 60 s) until every watched ad has answered, and hands over the step's figures, in ms. */
  async step(): Promise<number[]> {
    for (let wait = 0; wait < 600 && this.watched.length > 0; wait++) await sleep(100);
    const seen = [...this.seen, ...this.watched.map(() => Number.POSITIVE_INFINITY)];
    this.seen = [];
    this.watched.length = 0;
    return seen;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.polling;
  }

  private async poll(): Promise<void> {
    const calls: Promise<void>[] = [];
    const started = performance.now();
    for (let i = 0; !this.stopped; i++) {
      const target = this.watched.length > 0 ? this.watched[this.turn++ % this.watched.length] : undefined;
      calls.push(this.check(target));
      await sleep(Math.max(0, started + ((i + 1) * 1000) / PROBE_POLLS_PER_SECOND - performance.now()));
    }
    await Promise.all(calls);
  }

  private async check(target: { id: string; since: number } | undefined): Promise<void> {
    const id = target?.id ?? this.knownId;
    const res = await fetch(`${this.baseUrl}/api/v1/ads/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${this.token}` } }).catch(() => null);
    await res?.arrayBuffer();
    if (!target || res?.status !== 200) return;
    const index = this.watched.indexOf(target);
    if (index < 0) return;
    this.watched.splice(index, 1);
    this.seen.push(performance.now() - target.since);
  }
}

async function backlogOf(redis: Redis, stream: string): Promise<number> {
  const groups = (await redis.call('XINFO', 'GROUPS', stream)) as unknown[][];
  let sum = 0;
  for (const g of groups) for (let i = 0; i < g.length; i += 2) if (g[i] === 'lag' || g[i] === 'pending') sum += Number(g[i + 1] ?? 0);
  return sum;
}

main().catch((error: unknown) => {
  // fetch failures carry what went wrong (refused, reset) in `cause`.
  const cause = error instanceof Error && error.cause instanceof Error ? `\ncaused by: ${error.cause.message}` : '';
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}${cause}\n`);
  process.exit(1);
});
