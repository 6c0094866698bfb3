// What the image runs, runs: the production bundle built with the Dockerfile's own script, each app and the edge
// started from it with production settings and the pruned dependencies only (bundle-stack.mjs).
// No Docker engine runs here: the image itself is not built; this runs the same files the same way.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './manifests.mjs';
import { agentToken, APPS, k8sNodeOptions, sample, startBundleStack } from './bundle-stack.mjs';

const DEV_ONLY = ['jest', 'nx', 'typescript', 'webpack', 'eslint', '@swc/core', 'kubernetes-models'];
let stack;

const scrape = async (app) => {
  const res = await fetch(`${stack.urls[app]}/metrics`);
  assert.equal(res.status, 200, `${app} /metrics`);
  return res.text();
};

before(async () => {
  stack = await startBundleStack();
});
after(() => stack?.stop());

test('the bundle carries the four apps, the edge, and production dependencies only', () => {
  const { bundle } = stack;
  for (const app of APPS) assert.ok(existsSync(join(bundle, 'apps', app, 'main.js')), app);
  const manifest = JSON.parse(readFileSync(join(bundle, 'package.json'), 'utf8'));
  const workspace = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  assert.equal(manifest.devDependencies, undefined);
  assert.deepEqual(manifest.dependencies, workspace.dependencies);
  const lock = JSON.parse(readFileSync(join(bundle, 'package-lock.json'), 'utf8'));
  assert.deepEqual(Object.entries(lock.packages).filter(([, entry]) => entry.dev), []);
  assert.deepEqual(lock.packages[''].dependencies, workspace.dependencies);
  for (const name of DEV_ONLY) assert.equal(existsSync(join(bundle, 'node_modules', name)), false, `${name} is not in the bundle`);
});

test('the Dockerfile builds with this script and runs the bundle as node, exec-form, on node:24-bookworm-slim', () => {
  const dockerfile = readFileSync(join(ROOT, 'docker/Dockerfile'), 'utf8');
  assert.match(dockerfile, /^ARG NODE_IMAGE=node:24-bookworm-slim$/m);
  assert.equal(dockerfile.match(/^FROM \$\{NODE_IMAGE\} AS \w+$/gm).length, 3, 'three stages on the one base');
  assert.match(dockerfile, /^RUN node tools\/deploy\/build-bundle\.mjs --out \/bundle$/m);
  assert.match(dockerfile, /^RUN npm ci --omit=dev --ignore-scripts/m);
  assert.match(dockerfile, /^COPY --from=build \/bundle\/package\.json \/bundle\/package-lock\.json \.\/$/m);
  assert.match(dockerfile, /^USER node$/m);
  const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)[1]);
  const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)[1]);
  assert.equal(entrypoint[0], 'node', 'exec form: node is PID 1');
  assert.ok(existsSync(join(stack.bundle, cmd[0])), `the default command ${cmd[0]} is in the bundle`);
  const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
  for (const entry of ['**/node_modules', 'dist', '.git', 'data']) assert.ok(ignored.includes(entry), `.dockerignore: ${entry}`);
  // Every command compose gives the image exists in the bundle.
  const compose = parse(readFileSync(join(ROOT, 'docker/compose.yaml'), 'utf8'), { merge: true });
  for (const service of Object.values(compose.services).filter((s) => s.build)) assert.ok(existsSync(join(stack.bundle, service.command[0])), service.command[0]);
});

test("metering's operator CLI runs from the bundle on the production dependencies", () => {
  const listed = stack.cli('metering', ['parked-events']);
  assert.equal(listed.status, 0, listed.stderr);
  assert.match(listed.stderr, /0 parked events/);
});

test('each app started from the bundle with production settings answers /readyz', async () => {
  for (const app of APPS) {
    const res = await fetch(`${stack.urls[app]}/readyz`);
    const body = await res.json();
    assert.equal(res.status, 200, `${app}: ${JSON.stringify(body)}`);
    assert.equal(body.status, 'ready');
  }
});

test('/metrics answers on every app, stays off the public origin, and moves when a tool is called', async (t) => {
  const before = Object.fromEntries(await Promise.all(APPS.map(async (app) => [app, await scrape(app)])));
  for (const app of APPS) {
    assert.match(before[app], /^process_resident_memory_bytes /m, `${app}: Node process metrics`);
    assert.match(before[app], /^# TYPE adintel_http_requests_total counter$/m, `${app}: request metrics`);
  }
  assert.equal((await fetch(`${stack.edgeUrl}/metrics`)).status, 404, 'not through the public origin');

  const token = await agentToken(stack.edgeUrl);
  const ads = await fetch(`${stack.edgeUrl}/api/v1/ads?country=US&limit=5`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(ads.status, 200, await ads.clone().text());
  const charged = Number(ads.headers.get('x-tokens-charged'));
  assert.ok(charged > 0, 'the call was charged');

  const now = Object.fromEntries(await Promise.all(APPS.map(async (app) => [app, await scrape(app)])));
  const moved = (app, series) => sample(now[app], series) - sample(before[app], series);
  assert.equal(moved('mcp-gateway', 'adintel_tool_calls_total{tool="search_ads",status="200"}'), 1);
  assert.equal(moved('mcp-gateway', 'adintel_tool_call_duration_seconds_count{tool="search_ads",status="200"}'), 1);
  assert.equal(moved('metering', 'adintel_tokens_charged_total{tool="search_ads",plan="trial"}'), charged);
  assert.ok(moved('query-api', 'adintel_store_query_duration_seconds_count{engine="sqlite",operation="searchAds",outcome="ok"}') >= 1);
  assert.ok(moved('auth-server', 'adintel_http_requests_total{method="POST",route="/oauth2/*",status="200"}') >= 1);
  // REST tool twins share one catch-all route; the tool is the label of adintel_tool_calls_total.
  assert.equal(moved('mcp-gateway', 'adintel_http_requests_total{method="GET",route="/api/v1/{*path}",status="200"}'), 1);

  for (const app of APPS) {
    const rss = sample(now[app], 'process_resident_memory_bytes') / 2 ** 20;
    t.diagnostic(`${app}: RSS ${rss.toFixed(0)} MB after start and one call (${k8sNodeOptions(app)})`);
  }
});
