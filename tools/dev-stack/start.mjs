#!/usr/bin/env node
// `npm start`: the whole service on one machine with the embedded defaults and demo data.
// Ensures Redis, builds the four apps, seeds the demo store on first run (query-api's build then the seed, beside the
// builds of the three other apps: webpack leaves a core idle), starts each app as a child process, and serves them behind one origin
// (routes.mjs) on PUBLIC_PORT (default 3000). Ctrl-C stops everything; a seed stopped midway leaves no store behind,
// and the next start says what it found.
// The terminal shows progress and ready lines; the JSON logs go to data/logs/ (console.mjs, LOG_FORMAT).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_PORTS } from './routes.mjs';
import { createConsole } from './console.mjs';
import { createDemoOwner, demoOwnerLine } from './demo-owner.mjs';
import { listenFrontDoor } from './front-door.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const nx = join(root, 'node_modules/.bin/nx');
const publicPort = Number(process.env.PUBLIC_PORT ?? 3000);
const baseUrl = (process.env.PUBLIC_BASE_URL ?? `http://localhost:${publicPort}`).replace(/\/+$/, '');
const APPS = Object.keys(APP_PORTS);

const terminal = createConsole({ root });
const step = (title, cmd, args, options = {}) => terminal.step(title, cmd, args, { cwd: root, ...options });
const OTHER_APPS = APPS.filter((app) => app !== 'query-api');

await step('Checking Redis', process.execPath, ['tools/ensure-redis.mjs']);
// Two lines of work side by side from the start, so neither core waits: query-api's build then the seed (which needs
// its CLI), and the three other apps' builds (webpack is mostly one thread; they share no build output).
// The demo pictures are rendered after the seed, by the picture worker started below (docs/media.md).
await Promise.all([
  step('Building query-api', nx, ['run', 'query-api:build', '--outputStyle=stream']).then(() =>
    // What `nx run query-api:seed` runs (project.json), without a second nx start; its lines say what it found and how far it is.
    step('Seeding demo data (first run only)', process.execPath, ['--max-semi-space-size=64', 'dist/apps/query-api/cli.js', 'seed', '--render=later'], { notices: true }),
  ),
  step(`Building ${OTHER_APPS.join(', ')}`, nx, ['run-many', '-t', 'build', '-p', OTHER_APPS.join(','), '--outputStyle=stream']),
]);
console.log('\n▶ Creating the demo owner (first run only)');
const demoPassword = createDemoOwner({ root });

const children = new Map();
let stopping = false;
// Assigned once the apps are spawned (below); stopAll may run before that and must see it unset.
// eslint-disable-next-line prefer-const
let frontDoor;

function stopAll(code) {
  if (stopping) return;
  stopping = true;
  process.exitCode = code;
  frontDoor?.close();
  for (const child of children.values()) child.kill('SIGTERM');
  setTimeout(() => children.forEach((child) => child.kill('SIGKILL')), 10_000).unref();
}

terminal.appsStarting(APPS);
for (const app of APPS) {
  const child = spawn(process.execPath, ['--enable-source-maps', join(root, 'dist/apps', app, 'main.js')], {
    cwd: root,
    env: { ...process.env, PUBLIC_BASE_URL: baseUrl, PORT: String(APP_PORTS[app]) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.set(app, child);
  terminal.attach(app, child);
  child.on('exit', (code, signal) => {
    children.delete(app);
    terminal.exited(app, signal ?? code, { expected: stopping });
    if (!stopping) stopAll(code || 1); // one service down takes the stack down, loudly
  });
}

// The picture worker: a process of its own, so rendering and decoding never take the queries' CPU or memory. It is not
// an app with a ready line (the stack is up without it); if it stops, the stack stops, loudly, like an app.
const pictureWorker = spawn(process.execPath, ['--enable-source-maps', join(root, 'dist/apps/query-api/cli.js'), 'media-worker'], {
  cwd: root,
  env: process.env,
  stdio: ['ignore', 'pipe', 'pipe'],
});
children.set('media-worker', pictureWorker);
terminal.attach('media-worker', pictureWorker);
pictureWorker.on('exit', (code, signal) => {
  children.delete('media-worker');
  terminal.exited('media-worker', signal ?? code, { expected: stopping });
  if (!stopping) stopAll(code || 1);
});

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    console.log(`\n${signal}: stopping ${children.size} app(s)…`);
    stopAll(0);
  });
}

const upstreams = Object.fromEntries(APPS.map((app) => [app, `http://127.0.0.1:${APP_PORTS[app]}`]));
// Loopback unless PUBLIC_HOST says otherwise: the demo stack (its demo owner included) is for this machine.
frontDoor = listenFrontDoor(upstreams, publicPort, process.env.PUBLIC_HOST).once('listening', () => void announceWhenReady());
frontDoor.on('error', (error) => {
  console.error(`✖ the front door cannot listen on ${publicPort}: ${error.message} (set PUBLIC_PORT)`);
  stopAll(1);
});

async function announceWhenReady() {
  const deadline = Date.now() + 120_000;
  const ready = new Set();
  while (!stopping && Date.now() < deadline) {
    for (const app of APPS.filter((app) => !ready.has(app))) {
      if (!(await isReady(`${upstreams[app]}/readyz`))) continue;
      ready.add(app);
      terminal.ready(app, upstreams[app]);
    }
    if (ready.size === APPS.length) return printTour();
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  if (!stopping) console.error(`✖ the apps did not all become ready within 2 minutes; see their logs in ${terminal.logDir}`);
}

async function isReady(url) {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok;
  } catch {
    return false;
  }
}

function printTour() {
  const register = JSON.stringify({
    client_name: 'my-agent',
    grant_types: ['client_credentials'],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'mcp:read',
  });
  console.log(`
✔ Ad intelligence is up at ${baseUrl}  (MCP: ${baseUrl}/mcp · REST: ${baseUrl}/api/v1 · docs: ${baseUrl}/api/v1/docs · owners: ${baseUrl}/account)
  curl -s ${baseUrl}/oauth2/register -H 'Content-Type: application/json' -d '${register}'
  curl -s -u "$CLIENT_ID:$CLIENT_SECRET" ${baseUrl}/oauth2/token -d grant_type=client_credentials -d scope=mcp:read -d audience=${baseUrl}/mcp
  curl -s -H "Authorization: Bearer $ACCESS_TOKEN" '${baseUrl}/api/v1/ads?country=US&limit=5'
${demoOwnerLine(baseUrl, demoPassword)}
Ctrl-C stops everything.
`);
}
