/**
 * Live-data benchmark (not a test): the built stack on a large demo store, serving a steady query load (REST
 * search_ads and get_trends at a fixed rate, half of what it serves saturated unless --query-rate says) while
 * sightings (30% new ads, 70% re-sightings) are XADDed to the ingest stream at rising rates. For each rate it prints
 * freshness (XADD to visible through the public API, sampled on new ads) p50/p95, the queries' p95 against the
 * same queries with no ingest, query-api's CPU per sighting, and whether the rate was sustained (the group's backlog
 * at the end of the step). Goal (issue 27): at least 1,000 sightings/s with freshness p95 <= 5 s and query p95 <= 1.5x
 * idle; search_ads p95 <= 3x its one-at-a-time p50. Last, a control: the same query load with no ingest beside a
 * process burning the CPU the last rate's ingest took, which tells what sharing the cores costs the queries by itself.
 * Run: npx nx run e2e:live-bench [-- --ads=1000000 --rates=250,500,1000 --seconds=20 --data-dir=tmp/e2e-bench/ads-1000000]
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from '@adintel/redis';
import { WORKSPACE_ROOT } from '@adintel/testing';
import { newAgentToken } from '../test/agent';
import { startStack } from '../test/stack';
import { appCpuMs, redisCpuMs } from './process-stats';

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
/** How often a new ad is picked to be watched for freshness. */
const WATCH_EVERY_MS = 250;

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
      stream: { type: 'string', default: 'ingest:ads' },
      /** query-api's INGEST_BATCH_INTERVAL_MS (its own default unless given). */
      'batch-interval-ms': { type: 'string' },
    },
  });
  const ads = Number(values.ads);
  const seconds = Number(values.seconds);
  const rates = values.rates.split(',').map(Number);
  const queryDataDir = resolve(values['data-dir'] ?? join(WORKSPACE_ROOT, 'tmp', 'e2e-bench', `ads-${ads}`));
  mkdirSync(queryDataDir, { recursive: true });
  out(
    `# live bench: ${ads} demo ads in ${queryDataDir} (seeded unless already there), rates ${rates.join(', ')} sightings/s, ${seconds} s each` +
      (values['batch-interval-ms'] ? `, INGEST_BATCH_INTERVAL_MS=${values['batch-interval-ms']}` : ''),
  );
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
      },
    },
  });
  const redis = new Redis(stack.redisUrl);
  try {
    const { token } = await newAgentToken(stack.baseUrl);
    const ndjson = readdirSync(queryDataDir).find((f) => /^demo-ads-\d+\.ndjson$/.test(f));
    if (!ndjson) throw new Error(`no demo NDJSON in ${queryDataDir}`);
    const total = rates.reduce((sum, rate) => sum + rate * seconds, 0);
    out(`# preparing ${total} sightings from ${ndjson}...`);
    // query-api's CLI makes them (30% new ads, 70% re-sightings of the store's ads), one NDJSON line each.
    const file = join(queryDataDir, 'bench-sightings.ndjson');
    execFileSync(process.execPath, [join(WORKSPACE_ROOT, 'dist/apps/query-api/cli.js'), 'sightings', '--from', join(queryDataDir, ndjson), '--count', String(total), '--seed', String(Date.now() % 100_000), '--out', file], {
      stdio: 'inherit',
    });
    const sightings = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((text) => ({ id: (JSON.parse(text) as { id: string }).id, text }));

    const single = await oneAtATime(stack.baseUrl, token, 5);
    const saturation = await saturated(stack.baseUrl, token, 5);
    const queryRate = values['query-rate'] ? Number(values['query-rate']) : Math.max(1, Math.round(saturation / 2));
    out(`search_ads one at a time: p50 ${ms(pct(single, 50))}; saturated: ${saturation.toFixed(0)} searches/s; steady load: ${queryRate} calls/s`);
    const queryPid = stack.apps['query-api'].pid;
    // Every process of the stack (the four apps and Redis): what the steady load leaves of the machine's cores.
    const stackCpuMs = async () => Object.values(stack.apps).reduce((sum, app) => sum + appCpuMs(app.pid), 0) + (await redisCpuMs(redis));
    let cpu = appCpuMs(queryPid);
    const stackCpu = await stackCpuMs();
    const idle = await steadyLoad(stack.baseUrl, token, queryRate, seconds);
    const idleCpu = (appCpuMs(queryPid) - cpu) / seconds;
    const idleStackCpu = ((await stackCpuMs()) - stackCpu) / seconds;
    out(
      `idle: search p50 ${ms(pct(idle.search, 50))} p95 ${ms(pct(idle.search, 95))}, trends p95 ${ms(pct(idle.trends, 95))}, errors ${idle.errors}; ` +
        `query-api CPU ${idleCpu.toFixed(0)} ms/s, the whole stack ${idleStackCpu.toFixed(0)} ms/s of the machine's ${availableParallelism() * 1000}`,
    );
    out('');
    out('| sightings/s | freshness p50 | freshness p95 | search p95 (x idle) | trends p95 (x idle) | search p95 / one-at-a-time p50 | query-api CPU per sighting | backlog at end |');
    out('|---:|---:|---:|---:|---:|---:|---:|---:|');

    let next = 0;
    let ingestCpuPerSecond = 0;
    for (const rate of rates) {
      const freshness: number[] = [];
      const watching: Promise<void>[] = [];
      cpu = appCpuMs(queryPid);
      const load = steadyLoad(stack.baseUrl, token, queryRate, seconds);
      const started = performance.now();
      let sent = 0;
      let lastWatch = 0;
      // XADD in ticks of 50 ms; a new ad every WATCH_EVERY_MS is watched until GET /api/v1/ads/{id} finds it.
      while (performance.now() - started < seconds * 1000) {
        const due = Math.floor(((performance.now() - started) / 1000) * rate);
        const pipeline = redis.pipeline();
        const watched: string[] = [];
        for (; sent < due && next < sightings.length; sent++, next++) {
          const line = sightings[next];
          if (!line) break;
          pipeline.xadd(values.stream, '*', 'line', line.text);
          // A few new ads a second are watched: each is polled until it answers, and more polls would be a query load
          // of their own that grows with the rate (at 1 in 25 new ads, 1,000 sightings/s added ~120 calls/s).
          if (line.id.startsWith('live_') && performance.now() - lastWatch >= WATCH_EVERY_MS) {
            watched.push(line.id);
            lastWatch = performance.now();
          }
        }
        const at = performance.now();
        await pipeline.exec();
        for (const id of watched) watching.push(watch(stack.baseUrl, token, id, at).then((t) => void freshness.push(t)));
        await sleep(50);
      }
      const queries = await load;
      await Promise.all(watching);
      const stepCpu = appCpuMs(queryPid) - cpu - idleCpu * seconds;
      ingestCpuPerSecond = stepCpu / seconds;
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

    // The control: no ingest, and beside the same query load a process that burns the CPU the last rate's ingest
    // took. If the queries suffer as much, what they suffer from is sharing two cores, not how ingest does its work.
    const burner = burnCpu(ingestCpuPerSecond);
    let control: Latencies;
    try {
      control = await steadyLoad(stack.baseUrl, token, queryRate, seconds);
    } finally {
      burner.kill();
    }
    out('');
    out(
      `control, no ingest, a burner taking ${ingestCpuPerSecond.toFixed(0)} ms of CPU a second (the last rate's ingest): search p95 ${ms(pct(control.search, 95))} ` +
        `(${(pct(control.search, 95) / pct(idle.search, 95)).toFixed(2)}x idle), trends p95 ${ms(pct(control.trends, 95))} ` +
        `(${(pct(control.trends, 95) / pct(idle.trends, 95)).toFixed(2)}x idle), search p95 / one-at-a-time p50 ${(pct(control.search, 95) / pct(single, 50)).toFixed(1)}x`,
    );
  } finally {
    redis.disconnect();
    await stack.stop();
  }
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

/** Milliseconds from `since` until the ad is served (polled every 100 ms, for at most 60 s). */
async function watch(baseUrl: string, token: string, id: string, since: number): Promise<number> {
  for (let i = 0; i < 600; i++) {
    const res = await fetch(`${baseUrl}/api/v1/ads/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (res.status === 200) return performance.now() - since;
    await sleep(100);
  }
  return Number.POSITIVE_INFINITY;
}

async function backlogOf(redis: Redis, stream: string): Promise<number> {
  const groups = (await redis.call('XINFO', 'GROUPS', stream)) as unknown[][];
  let sum = 0;
  for (const g of groups) for (let i = 0; i < g.length; i += 2) if (g[i] === 'lag' || g[i] === 'pending') sum += Number(g[i + 1] ?? 0);
  return sum;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
