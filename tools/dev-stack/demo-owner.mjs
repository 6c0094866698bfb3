// The demo owner of `npm start`: created once per Redis with a password made here, printed once, stored nowhere.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { readable } from './console.mjs';

export const DEMO_OWNER = 'demo@example.com';

/**
 * Runs the built create-owner (what `nx run auth-server:create-owner` runs, without another nx start: the caller
 * has built the apps) with --if-absent and a fresh password, passed in OWNER_PASSWORD (a command line is readable
 * by every user of the machine). Returns the password when the owner was created now, undefined when it existed.
 */
export function createDemoOwner({ root }) {
  const password = randomBytes(12).toString('base64url');
  const args = [join(root, 'dist/apps/auth-server/create-owner.js'), `--email=${DEMO_OWNER}`, '--plan=pro', '--if-absent'];
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, OWNER_PASSWORD: password } });
  // Its log lines (on a first run: metering, not started yet, records the owner later) as the console shows the apps'.
  for (const line of (result.stderr ?? '').split('\n').filter(Boolean)) console.log(`  ${readable(line)}`);
  // create-owner's one result line.
  const outcome = (result.stdout ?? '')
    .split('\n')
    .filter((line) => line.includes('{"owner_id"'))
    .map((line) => JSON.parse(line.slice(line.indexOf('{"owner_id"'))))
    .at(-1);
  if (result.status !== 0 || !outcome) throw new Error(`creating the demo owner failed (exit ${result.status ?? result.signal})\n${result.stdout ?? ''}`);
  return outcome.created ? password : undefined;
}

/** The tour's line about the owner account page. */
export function demoOwnerLine(baseUrl, password) {
  return password
    ? `Owners sign in at ${baseUrl}/account as ${DEMO_OWNER} / ${password} (shown this once: note it) to attach agents and see usage.`
    : `Owners sign in at ${baseUrl}/account as ${DEMO_OWNER} (password shown on the first run; a new one: npx nx run auth-server:create-owner --email=${DEMO_OWNER} --password=... --plan=pro).`;
}
