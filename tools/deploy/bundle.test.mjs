// What the image runs, runs: the production bundle is built with the Dockerfile's own script
// (tools/deploy/build-bundle.mjs), its node_modules hold exactly the pruned lockfile's packages (outside this
// workspace, so nothing else resolves), and each app and the edge start from it with production settings
// (NODE_ENV=production, the heap limits of the k8s manifests, keys and secrets given as a Secret would).
// No Docker engine runs here: the image itself is not built; this runs the same files the same way.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { APP_PORTS } from '../dev-stack/routes.mjs';
import { ROOT } from './manifests.mjs';
import { answers, freePort, startProcess, startRedis } from './processes.mjs';

const APPS = Object.keys(APP_PORTS);
const DEV_ONLY = ['jest', 'nx', 'typescript', 'webpack', 'eslint', '@swc/core', 'kubernetes-models'];
const work = mkdtempSync(join(tmpdir(), 'adintel-bundle-'));
const bundle = join(work, 'bundle');
const running = [];
const urls = {};
let edgeUrl;

/** The heap limit the Kubernetes base gives an app (NODE_OPTIONS of its container). */
function k8sNodeOptions(app) {
  const [deployment] = parseAllDocuments(readFileSync(join(ROOT, `k8s/base/${app}.yaml`), 'utf8')).map((d) => d.toJS());
  return deployment.spec.template.spec.containers[0].env.find((e) => e.name === 'NODE_OPTIONS').value;
}

/** One sample of the Prometheus text, 0 when the series does not exist yet. */
function sample(text, series) {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}
const scrape = async (app) => {
  const res = await fetch(`${urls[app]}/metrics`);
  assert.equal(res.status, 200, `${app} /metrics`);
  return res.text();
};

before(async () => {
  const built = spawnSync(process.execPath, [join(ROOT, 'tools/deploy/build-bundle.mjs'), '--out', bundle, '--link-node-modules'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  assert.equal(built.status, 0, `build-bundle failed:\n${built.stdout}\n${built.stderr}`);

  const redis = await startRedis();
  running.push(redis);
  const ports = Object.fromEntries(await Promise.all(APPS.map(async (app) => [app, await freePort()])));
  for (const app of APPS) urls[app] = `http://127.0.0.1:${ports[app]}`;
  const edgePort = await freePort();
  edgeUrl = `http://127.0.0.1:${edgePort}`;
  const signingKey = { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }), kid: 'bundle-test', alg: 'ES256', use: 'sig' };
  const jwksFile = join(work, 'jwks.json'); // as the auth-keys Secret is mounted
  writeFileSync(jwksFile, JSON.stringify({ keys: [signingKey] }), { mode: 0o600 });
  // Only what a container would have: no inherited NODE_OPTIONS, NODE_PATH or workspace variables.
  const common = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    PUBLIC_BASE_URL: edgeUrl,
    REDIS_URL: redis.url,
    TRANSPORT_URL: redis.url,
  };
  const env = {
    'auth-server': { AUTH_JWKS_FILE: jwksFile, AUTH_COOKIE_KEYS: `${randomBytes(32).toString('base64url')}`, DATA_DIR: join(work, 'auth') },
    'mcp-gateway': { AUTH_JWKS_URL: `${urls['auth-server']}/oauth2/jwks` },
    'query-api': { STORE_ENGINE: 'sqlite', QUERY_WORKERS: '1', DATA_DIR: join(work, 'query'), CURSOR_SECRET: randomBytes(32).toString('hex') },
    metering: {},
  };
  const seeded = spawnSync(process.execPath, ['apps/query-api/cli.js', 'seed', '--count', '2000'], {
    cwd: bundle,
    env: { ...common, ...env['query-api'], NODE_OPTIONS: k8sNodeOptions('query-api') },
    encoding: 'utf8',
  });
  assert.equal(seeded.status, 0, `seed from the bundle failed:\n${seeded.stderr}`);

  const start = (app) =>
    startProcess(app, process.execPath, ['--enable-source-maps', `apps/${app}/main.js`], {
      cwd: bundle,
      env: { ...common, ...env[app], PORT: String(ports[app]), NODE_OPTIONS: k8sNodeOptions(app) },
      ready: () => answers(`${urls[app]}/healthz`),
    });
  // auth-server's readiness asks metering; the gateway's asks auth-server: start in dependency order.
  for (const group of [['metering', 'query-api'], ['auth-server'], ['mcp-gateway']]) {
    running.push(...(await Promise.all(group.map(start))));
  }
  const upstreams = Object.fromEntries(APPS.map((app) => [`UPSTREAM_${app.toUpperCase().replaceAll('-', '_')}`, urls[app]]));
  running.push(
    await startProcess('edge', process.execPath, ['edge/edge.mjs'], {
      cwd: bundle,
      env: { PATH: process.env.PATH, PORT: String(edgePort), HOST: '127.0.0.1', ...upstreams },
      ready: async () => (await fetch(`${edgeUrl}/nothing`)).status === 404,
    }),
  );
});

after(async () => {
  for (const process of running.reverse()) await process.stop();
  rmSync(work, { recursive: true, force: true });
});

test('the bundle carries the four apps, the edge, and production dependencies only', () => {
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
  assert.ok(existsSync(join(bundle, cmd[0])), `the default command ${cmd[0]} is in the bundle`);
  const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
  for (const entry of ['**/node_modules', 'dist', '.git', 'data']) assert.ok(ignored.includes(entry), `.dockerignore: ${entry}`);
  // Every command compose and Kubernetes give the image exists in the bundle.
  const compose = parse(readFileSync(join(ROOT, 'docker/compose.yaml'), 'utf8'), { merge: true });
  for (const service of Object.values(compose.services).filter((s) => s.build)) assert.ok(existsSync(join(bundle, service.command[0])), service.command[0]);
});

test('each app started from the bundle with production settings answers /readyz', async () => {
  for (const app of APPS) {
    const res = await fetch(`${urls[app]}/readyz`);
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
  assert.equal((await fetch(`${edgeUrl}/metrics`)).status, 404, 'not through the public origin');

  const registered = await fetch(`${edgeUrl}/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'bundle test', grant_types: ['client_credentials'], response_types: [], token_endpoint_auth_method: 'client_secret_basic', scope: 'mcp:read' }),
  });
  assert.equal(registered.status, 201, await registered.clone().text());
  const client = await registered.json();
  const tokenRes = await fetch(`${edgeUrl}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:read', resource: `${edgeUrl}/mcp` }),
  });
  assert.equal(tokenRes.status, 200, await tokenRes.clone().text());
  const { access_token: token } = await tokenRes.json();
  const ads = await fetch(`${edgeUrl}/api/v1/ads?country=US&limit=5`, { headers: { authorization: `Bearer ${token}` } });
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
    const heap = /--max-old-space-size=(\d+)/.exec(k8sNodeOptions(app))[1];
    t.diagnostic(`${app}: RSS ${rss.toFixed(0)} MB after start and one call (heap limit ${heap} MB)`);
  }
});
