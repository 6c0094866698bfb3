#!/usr/bin/env node
// Make sure a Redis answers on REDIS_URL (default redis://127.0.0.1:6379).
// If nothing answers and `redis-server` is installed, start a throwaway local one (no persistence).
import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';

const url = new URL(process.env.REDIS_URL || 'redis://127.0.0.1:6379');
const host = url.hostname || '127.0.0.1';
const port = Number(url.port || 6379);
const isLocal = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host);

/** Send a raw RESP `PING` (with AUTH first if the URL carries a password); resolve true on +PONG. */
function ping(timeoutMs = 500) {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let buf = '';
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    const pass = decodeURIComponent(url.password || '');
    const user = decodeURIComponent(url.username || '');
    const replies = pass ? 2 : 1;
    socket.on('connect', () => {
      if (pass) socket.write(user ? `AUTH ${user} ${pass}\r\n` : `AUTH ${pass}\r\n`);
      socket.write('PING\r\n');
    });
    socket.on('data', (d) => {
      buf += d.toString();
      if (buf.includes('+PONG\r\n')) done(true);
      else if (buf.split('\r\n').length > replies) done(false); // an error reply instead of PONG
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

if (await ping()) {
  console.log(`ensure-redis: Redis answers on ${host}:${port}`);
  process.exit(0);
}

const which = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
if (!isLocal || which.status !== 0) {
  console.error(
    `ensure-redis: no Redis answers on ${host}:${port}` +
      (isLocal
        ? ' and redis-server is not installed.\n  Install it with: sudo apt-get install -y redis-server  (or: brew install redis)'
        : '. Start it, or unset REDIS_URL to use a local one.'),
  );
  process.exit(1);
}

console.log(`ensure-redis: starting redis-server on 127.0.0.1:${port}`);
const started = spawnSync(
  'redis-server',
  ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
  { stdio: 'inherit' },
);
if (started.status !== 0) {
  console.error('ensure-redis: redis-server failed to start');
  process.exit(1);
}
for (let i = 0; i < 50; i++) {
  if (await ping()) {
    console.log(`ensure-redis: Redis is up on 127.0.0.1:${port}`);
    process.exit(0);
  }
  await sleep(100);
}
console.error('ensure-redis: redis-server started but does not answer PING');
process.exit(1);
