#!/usr/bin/env node
// Local dev stack: ensure Redis, build the four apps, run each dist/apps/<app>/main.js as a child
// process with prefixed output. Ctrl-C / SIGTERM stop every child; if one child dies, all stop.
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const APPS = ['auth-server', 'mcp-gateway', 'query-api', 'metering'];

function runOrExit(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

runOrExit(process.execPath, ['tools/ensure-redis.mjs']);
runOrExit(join(root, 'node_modules/.bin/nx'), ['run-many', '-t', 'build', '-p', APPS.join(','), '--outputStyle=stream']);

const children = new Map();
let stopping = false;

function stopAll(code) {
  if (stopping) return;
  stopping = true;
  process.exitCode = code;
  for (const child of children.values()) child.kill('SIGTERM');
  // Anything still alive after 5 s gets SIGKILL.
  setTimeout(() => children.forEach((c) => c.kill('SIGKILL')), 5000).unref();
}

const width = Math.max(...APPS.map((a) => a.length));
for (const app of APPS) {
  const child = spawn(process.execPath, ['--enable-source-maps', join(root, 'dist/apps', app, 'main.js')], {
    cwd: root,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.set(app, child);
  const prefix = `${app.padEnd(width)} |`;
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => console.log(prefix, line));
  }
  child.on('exit', (code, signal) => {
    children.delete(app);
    console.log(prefix, `exited (${signal ?? code})`);
    if (!stopping) stopAll(code || 1); // one service down: take the stack down, fail loudly
  });
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    console.log(`\ndev-stack: ${sig}, stopping ${children.size} service(s)...`);
    stopAll(0);
  });
}
