import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { networkInterfaces } from 'node:os';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.mjs';

const frontDoor = fileURLToPath(new URL('./front-door.mjs', import.meta.url));

/** The front door as `npm start` runs it (listenFrontDoor without PUBLIC_HOST), in a process of its own. */
async function startFrontDoor(port, host) {
  const script = `import { listenFrontDoor } from ${JSON.stringify(frontDoor)};
listenFrontDoor({}, ${port}${host ? `, ${JSON.stringify(host)}` : ''}).once('listening', () => console.log('listening'));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await once(child.stdout, 'data');
  return child;
}

const reachable = (url) => fetch(url, { signal: AbortSignal.timeout(2_000) }).then(() => true, () => false);
const external = Object.values(networkInterfaces()).flat().find((i) => i && !i.internal && i.family === 'IPv4');

test('npm start is reachable on loopback only, unless PUBLIC_HOST says otherwise', { skip: !external && 'no non-loopback IPv4 address here' }, async () => {
  const port = await freePort();
  const child = await startFrontDoor(port);
  try {
    assert.equal(await reachable(`http://127.0.0.1:${port}/nothing`), true);
    assert.equal(await reachable(`http://${external.address}:${port}/nothing`), false);
  } finally {
    child.kill();
  }
  const open = await startFrontDoor(port, '0.0.0.0');
  try {
    assert.equal(await reachable(`http://${external.address}:${port}/nothing`), true);
  } finally {
    open.kill();
  }
});
