import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDemoOwner, demoOwnerLine } from './demo-owner.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

// The real create-owner (built by nx: the project's test depends on the apps' builds) on the shared Redis, db 2, under a prefix of its own.
test('the demo owner is created once, with a generated password printed only then', { timeout: 180_000 }, () => {
  const prefix = `test-demo-owner-${randomBytes(4).toString('hex')}:`;
  const saved = { REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: process.env.REDIS_KEY_PREFIX, TRANSPORT_TIMEOUT_MS: process.env.TRANSPORT_TIMEOUT_MS };
  Object.assign(process.env, { REDIS_URL: 'redis://127.0.0.1:6379/2', REDIS_KEY_PREFIX: prefix, TRANSPORT_TIMEOUT_MS: '500' });
  try {
    const first = createDemoOwner({ root });
    assert.match(first ?? '', /^[\w-]{16}$/);
    assert.notEqual(first, 'demo-owner-password');
    assert.match(demoOwnerLine('http://localhost:3000', first), new RegExp(`demo@example.com / ${first} \\(shown this once`));
    const second = createDemoOwner({ root });
    assert.equal(second, undefined);
    assert.doesNotMatch(demoOwnerLine('http://localhost:3000', second), / \/ /);
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    spawnSync('sh', ['-c', `redis-cli -n 2 --scan --pattern '${prefix}*' | xargs -r redis-cli -n 2 del`]);
  }
});
