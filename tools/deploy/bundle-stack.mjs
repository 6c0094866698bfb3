// The production bundle as real processes: built with the Dockerfile's own script (build-bundle.mjs) in a copy of the
// workspace, as the image's build stage gets one (and so that its builds never rewrite the dist/ other tests run
// from: workspace-copy.mjs); its node_modules filled with exactly the pruned lockfile's packages in a temporary
// directory outside this workspace (so nothing else resolves), a private redis-server, the four apps with production
// settings (NODE_ENV=production, the heap limits of the k8s manifests, keys and secrets given as the Secrets would),
// and the edge in front. Used by bundle.test.mjs and memory.mjs.
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { APP_PORTS } from '../dev-stack/routes.mjs';
import { copyWorkspace } from '../workspace-copy.mjs';
import { BUNDLE_VIEWS_DIR } from './build-bundle.mjs';
import { ROOT } from './manifests.mjs';
import { answers, freePort, startProcess, startRedis } from './processes.mjs';

export const APPS = Object.keys(APP_PORTS);

/** The NODE_OPTIONS (heap limit) the Kubernetes base gives an app's container. */
export function k8sNodeOptions(app) {
  const [deployment] = parseAllDocuments(readFileSync(join(ROOT, `k8s/base/${app}.yaml`), 'utf8')).map((d) => d.toJS());
  return deployment.spec.template.spec.containers[0].env.find((e) => e.name === 'NODE_OPTIONS').value;
}

/** One sample of a Prometheus text, 0 when the series does not exist yet. */
export function sample(text, series) {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

function run(args, options) {
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
}

/** Builds the bundle, seeds `ads` demo ads, starts everything; `extraEnv` adds settings per app. */
export async function startBundleStack({ ads = 2_000, extraEnv = {} } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'adintel-bundle-'));
  const bundle = join(work, 'bundle');
  const running = [];
  const workspace = copyWorkspace('adintel-bundle-workspace-');
  const stop = async () => {
    for (const child of running.reverse()) await child.stop();
    rmSync(work, { recursive: true, force: true });
    workspace.remove();
  };
  try {
    run([join(workspace.root, 'tools/deploy/build-bundle.mjs'), '--out', bundle, '--link-node-modules'], { cwd: workspace.root, env: { ...process.env, ...workspace.env } });
    const redis = await startRedis();
    running.push(redis);
    const urls = {};
    const ports = {};
    for (const app of APPS) {
      ports[app] = await freePort();
      urls[app] = `http://127.0.0.1:${ports[app]}`;
    }
    const edgePort = await freePort();
    const edgeUrl = `http://127.0.0.1:${edgePort}`;
    const signingKey = { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }), kid: 'bundle', alg: 'ES256', use: 'sig' };
    const jwksFile = join(work, 'jwks.json'); // as the adintel-auth-keys Secret is mounted
    writeFileSync(jwksFile, JSON.stringify({ keys: [signingKey] }), { mode: 0o600 });
    // Only what a container would have: no inherited NODE_OPTIONS, NODE_PATH or workspace variables.
    const common = { PATH: process.env.PATH, NODE_ENV: 'production', HOST: '127.0.0.1', LOG_LEVEL: 'warn', PUBLIC_BASE_URL: edgeUrl, REDIS_URL: redis.url, TRANSPORT_URL: redis.url, MCP_VIEWS_DIR: BUNDLE_VIEWS_DIR };
    const env = {
      'auth-server': { AUTH_JWKS_FILE: jwksFile, AUTH_COOKIE_KEYS: randomBytes(32).toString('base64url'), DATA_DIR: join(work, 'auth') },
      // The gateway serves media files from query-api's media folder, as the cluster mounts it read only.
      'mcp-gateway': { AUTH_JWKS_URL: `${urls['auth-server']}/oauth2/jwks`, MEDIA_DIR: join(work, 'query', 'media') },
      'query-api': { STORE_ENGINE: 'sqlite', QUERY_WORKERS: '1', DATA_DIR: join(work, 'query'), CURSOR_SECRET: randomBytes(32).toString('hex') },
      metering: {},
    };
    const appEnv = (app) => ({ ...common, ...env[app], NODE_OPTIONS: k8sNodeOptions(app), ...extraEnv[app] });
    run(['apps/query-api/cli.js', 'seed', '--count', String(ads)], { cwd: bundle, env: appEnv('query-api') });
    const start = (app) =>
      startProcess(app, process.execPath, ['--enable-source-maps', `apps/${app}/main.js`], {
        cwd: bundle,
        env: { ...appEnv(app), PORT: String(ports[app]) },
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
    /** Runs an app's CLI from the bundle with that app's settings, as `kubectl exec` would; returns spawnSync's result. */
    const cli = (app, args) => spawnSync(process.execPath, [`apps/${app}/cli.js`, ...args], { cwd: bundle, env: appEnv(app), encoding: 'utf8' });
    return { bundle, urls, edgeUrl, stop, cli };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Registers an agent through the edge and returns its access token. */
export async function agentToken(edgeUrl) {
  const registered = await fetch(`${edgeUrl}/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'bundle agent', grant_types: ['client_credentials'], response_types: [], token_endpoint_auth_method: 'client_secret_basic', scope: 'mcp:read' }),
  });
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${await registered.text()}`);
  const client = await registered.json();
  const res = await fetch(`${edgeUrl}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:read', resource: `${edgeUrl}/mcp` }),
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return (await res.json()).access_token;
}
