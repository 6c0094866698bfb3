#!/usr/bin/env node
// Memory of each app under load, with the heap limits of the k8s manifests: the bundle stack (bundle-stack.mjs),
// CALLS tool calls through the edge at CONCURRENCY, RSS of every app sampled from its /metrics during the run.
//   node tools/deploy/memory.mjs [--calls 3000] [--concurrency 16] [--ads 20000] [--no-heap-limits]
// --no-heap-limits runs the apps without NODE_OPTIONS, for a side-by-side comparison.
// Prints RSS per app (start, peak, end) against the container memory limit; no pass/fail: a measurement.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { ROOT } from './manifests.mjs';
import { agentToken, APPS, k8sNodeOptions, sample, startBundleStack } from './bundle-stack.mjs';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '3000' }, concurrency: { type: 'string', default: '16' }, ads: { type: 'string', default: '20000' }, 'no-heap-limits': { type: 'boolean', default: false } } });
const calls = Number(values.calls);
const concurrency = Number(values.concurrency);
const REQUESTS = ['/api/v1/ads?country=US&limit=20', '/api/v1/ads?q=shoes&limit=20', '/api/v1/ads/count?country=DE', '/api/v1/analytics/trends/geo?limit=10'];

const memoryLimit = (app) => {
  const [deployment] = parseAllDocuments(readFileSync(join(ROOT, `k8s/base/${app}.yaml`), 'utf8')).map((d) => d.toJS());
  return deployment.spec.template.spec.containers[0].resources.limits.memory;
};
const rssOf = async (url) => sample(await (await fetch(`${url}/metrics`)).text(), 'process_resident_memory_bytes') / 2 ** 20;

const noHeapLimit = values['no-heap-limits'] ? { NODE_OPTIONS: '' } : {};
const heapOf = (app) => (values['no-heap-limits'] ? '(no heap limit)' : k8sNodeOptions(app));
console.error(`building the bundle and starting the stack with ${values.ads} ads…`);
const stack = await startBundleStack({
  ads: Number(values.ads),
  extraEnv: {
    'mcp-gateway': { ...noHeapLimit, RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_BURST: '100000' },
    metering: { ...noHeapLimit, PLANS: JSON.stringify({ trial: { allowance: 100_000_000, period: 'lifetime' }, pro: { allowance: 40_000, period: 'month' } }) },
    'auth-server': noHeapLimit,
    'query-api': noHeapLimit,
  },
});
try {
  const token = await agentToken(stack.edgeUrl);
  const start = Object.fromEntries(await Promise.all(APPS.map(async (app) => [app, await rssOf(stack.urls[app])])));
  const peak = { ...start };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      for (const app of APPS) peak[app] = Math.max(peak[app], await rssOf(stack.urls[app]));
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  let next = 0;
  const statuses = {};
  const failures = new Map();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        const path = REQUESTS[next++ % REQUESTS.length];
        const res = await fetch(`${stack.edgeUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
        const body = await res.text();
        if (res.status !== 200 && !failures.has(res.status)) failures.set(res.status, `${path}: ${body.slice(0, 300)}`);
        const key = `${res.status} ${path.split('?')[0]}`;
        statuses[key] = (statuses[key] ?? 0) + 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  sampling = false;
  await sampler;
  const end = Object.fromEntries(await Promise.all(APPS.map(async (app) => [app, await rssOf(stack.urls[app])])));
  console.log(`${calls} calls at concurrency ${concurrency} in ${seconds.toFixed(1)} s (${(calls / seconds).toFixed(0)} req/s), statuses ${JSON.stringify(statuses)}`);
  for (const [status, example] of failures) console.log(`first ${status}: ${example}`);
  console.log('app          heap limit                 RSS start  peak   end    container limit');
  for (const app of APPS) {
    console.log(`${app.padEnd(12)} ${heapOf(app).padEnd(26)} ${start[app].toFixed(0).padStart(5)} MB ${peak[app].toFixed(0).padStart(4)} MB ${end[app].toFixed(0).padStart(4)} MB  ${memoryLimit(app)}`);
  }
} finally {
  await stack.stop();
}
