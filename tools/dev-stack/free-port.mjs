import { once } from 'node:events';
import { createServer } from 'node:net';

/** A free TCP port on loopback (the dev-stack and deploy tests start servers on it). */
export async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}
