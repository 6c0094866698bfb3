// `npm start` as a person sees it: the real script, which builds and starts the four apps as processes on the
// local Redis (database 6 here, so the test's streams and demo owner stay apart from a developer's stack).
// It runs in a copy of the workspace (workspace-copy.mjs), as a fresh clone: its builds and its demo store are the
// copy's, never the dist/ other tests run from or a developer's store.
// The apps keep their fixed ports (3001-3004): this test fails if a stack already runs on this machine.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { copyWorkspace } from '../workspace-copy.mjs';
import { APP_PORTS } from './routes.mjs';
import { LOG_DIR, logFormatFrom, parseLogLine, readable } from './console.mjs';
import { freePort } from './free-port.mjs';

const workspace = copyWorkspace('adintel-npm-start-');
after(() => workspace.remove());
const { root } = workspace;
const APPS = Object.keys(APP_PORTS);
const TOUR = 'Ad intelligence is up at';

/**
 * Runs start.mjs until its tour is printed (or it exits, or `until(stdout)` holds), then stops it as Ctrl-C does
 * (`signal` to its whole process group, the set-up steps' children included).
 */
async function runStart(env, { until = (stdout) => stdout.includes(TOUR), signal = 'SIGINT' } = {}) {
  const port = await freePort();
  const inherited = { ...process.env };
  delete inherited.PUBLIC_BASE_URL; // derived from PUBLIC_PORT, as a newcomer has it
  const child = spawn(process.execPath, [join(root, 'tools/dev-stack/start.mjs')], {
    cwd: root,
    env: { ...inherited, ...workspace.env, PUBLIC_PORT: String(port), REDIS_URL: 'redis://127.0.0.1:6379/6', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // a process group of its own, as a terminal's foreground job is
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = once(child, 'exit');
  const deadline = Date.now() + 600_000; // a first build of the four apps on a busy 2-core machine
  while (!until(stdout) && child.exitCode === null && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const upBeforeStop = stdout.includes(TOUR);
  if (child.exitCode === null) process.kill(-child.pid, signal);
  const [code] = await exited;
  return { stdout, stderr, code, upBeforeStop, port };
}

test('LOG_FORMAT accepts console (the default) and json, and names itself when refused', () => {
  assert.equal(logFormatFrom({}), 'console');
  assert.equal(logFormatFrom({ LOG_FORMAT: 'json' }), 'json');
  assert.throws(() => logFormatFrom({ LOG_FORMAT: 'pretty' }), /LOG_FORMAT must be one of console, json \(got "pretty"\)/);
});

test('a JSON log line reads as time, level, message and error; other lines stay as they are', () => {
  const line = JSON.stringify({ level: 'error', time: '2026-11-25T10:46:38.606Z', service: 'query-api', msg: 'store failed', err: { message: 'disk full' } });
  assert.equal(readable(line), '10:46:38 error store failed (disk full)');
  assert.equal(readable('    at Object.<anonymous> (main.js:1:1)'), '    at Object.<anonymous> (main.js:1:1)');
});

test('an unknown LOG_FORMAT stops npm start before it does anything', async () => {
  const { code, stdout, stderr } = await runStart({ LOG_FORMAT: 'yaml' });
  assert.equal(code, 1);
  assert.match(stderr, /LOG_FORMAT must be one of console, json/);
  assert.equal(stdout, '');
});

const STORE = join(root, 'data/query/ads.sqlite');

/** What the demo store holds (the test's own SQL), or null when there is no store. */
function storeCounts() {
  if (!existsSync(STORE)) return null;
  const db = new DatabaseSync(STORE, { readOnly: true });
  try {
    const n = (sql) => Number(db.prepare(sql).get().n);
    const finished = Boolean(db.prepare("SELECT value FROM meta WHERE key = 'generation'").get()?.value);
    return { ads: n('SELECT count(*) AS n FROM ads'), entities: n('SELECT count(*) AS n FROM entities'), finished };
  } finally {
    db.close();
  }
}

// A newcomer's first run stopped during the seed (Ctrl-C, then a kill), then started again: a fresh copy and an
// empty Redis database, so the demo owner is created too.
test('a first run stopped during its seed leaves no store; the next start says what it found and comes up with every ad', async () => {
  assert.equal(spawnSync('redis-cli', ['-n', '6', 'FLUSHDB'], { encoding: 'utf8' }).stdout.trim(), 'OK');
  const stops = [
    { signal: 'SIGINT', at: /^ {2}ingest: \d+ rows, \d+ %/m },
    { signal: 'SIGKILL', at: /^ {2}rows written: building indexes and rollups/m },
  ];
  for (const { signal, at } of stops) {
    const { stdout, stderr } = await runStart({ LOG_FORMAT: '' }, { until: (out) => at.test(out), signal });
    assert.match(stdout, at, `npm start never got to ${at}:\n${stdout}\n${stderr}`);
    assert.equal(storeCounts(), null, `no store after ${signal}`);
  }
  const { stdout, stderr, upBeforeStop } = await runStart({ LOG_FORMAT: '' });
  assert.ok(upBeforeStop, `npm start never printed its tour:\n${stdout}\n${stderr}`);
  assert.match(stdout, /^ {2}found \S+ads\.sqlite\.loading, left by a seed or ingest that was stopped before it finished: removing it/m);
  assert.match(stdout, /^ {2}switched \S+ads\.sqlite to the finished load$/m);
  assert.match(stdout, /as demo@example\.com \/ \S+ \(shown this once/, 'the demo owner created, its password shown');
  // The terminal shows both streams.
  assert.deepEqual(`${stdout}\n${stderr}`.split('\n').filter((line) => parseLogLine(line.trim())), [], 'no JSON log line on the console');
  const counts = storeCounts();
  assert.deepEqual({ ads: counts.ads, finished: counts.finished }, { ads: 100_000, finished: true });
  assert.ok(counts.entities > 1_000, `${counts.entities} entity records`);
});

test('the console shows progress, one ready line per app and the tour, no JSON; the JSON logs are in data/logs', async () => {
  const { stdout, stderr, code, upBeforeStop, port } = await runStart({ LOG_FORMAT: '' });
  assert.ok(upBeforeStop, `npm start never printed its tour:\n${stdout}\n${stderr}`);
  assert.equal(code, 0, stderr);
  const lines = stdout.split('\n');
  assert.deepEqual(
    lines.filter((line) => parseLogLine(line.trim())),
    [],
    'no JSON log line on the console',
  );
  assert.match(stdout, /^✔ Checking Redis \(\d+\.\d s\)$/m);
  assert.match(stdout, /^✔ Building query-api \(\d+\.\d s\)$/m);
  assert.match(stdout, /^✔ Building auth-server, mcp-gateway, metering \(\d+\.\d s\)$/m);
  assert.match(stdout, /^✔ Seeding demo data \(first run only\) \(\d+\.\d s\)$/m);
  assert.match(stdout, /^ {2}the sqlite store already holds 100000 ads: not seeding/m);
  for (const app of APPS) assert.match(stdout, new RegExp(`^✔ ${app} +ready on http://[^ ]+:${APP_PORTS[app]} `, 'm'));
  assert.match(stdout, new RegExp(`${TOUR} http://localhost:${port}`));
  // Short: the steps, the seed's few lines, the ready lines, the tour and the stop lines, not hundreds of log lines.
  assert.ok(lines.length < 45, `${lines.length} lines on the console:\n${stdout}`);

  for (const app of APPS) {
    const path = join(root, LOG_DIR, `${app}.log`);
    assert.ok(existsSync(path), `${path} exists`);
    const entries = readFileSync(path, 'utf8').split('\n').map(parseLogLine).filter(Boolean);
    assert.ok(entries.some((entry) => entry.service === app && entry.msg === 'listening'), `${app}.log holds its JSON lines`);
  }
  assert.match(readFileSync(join(root, LOG_DIR, 'setup.log'), 'utf8'), /▶ Building query-api/);
});

test('LOG_FORMAT=json puts every app\'s JSON lines on the terminal as well', async () => {
  const { stdout, stderr, code, upBeforeStop } = await runStart({ LOG_FORMAT: 'json' });
  assert.ok(upBeforeStop, `npm start never printed its tour:\n${stdout}\n${stderr}`);
  assert.equal(code, 0, stderr);
  const entries = stdout.split('\n').map(parseLogLine).filter(Boolean);
  for (const app of APPS) assert.ok(entries.some((entry) => entry.service === app && entry.msg === 'listening'), `${app}'s JSON on stdout`);
});
