import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A free TCP port on loopback, picked below the kernel's ephemeral range: a port from that range (what listen(0)
 * hands out) can be taken by any outgoing connection between this check and the app's own listen, which a busy test
 * run saw as EADDRINUSE. The scripts' tests (tools/dev-stack/free-port.mjs) load this one.
 *
 * Never the same port twice in a process: a port picked now may be bound much later (a stack's front door, after its
 * apps are ready), and meanwhile it is free to the next pick; a CI run saw a stack's gateway given its front door's port.
 */
export async function freePort(): Promise<number> {
  const below = ephemeralLow();
  for (let attempt = 0; below !== undefined && attempt < 50; attempt += 1) {
    const port = below - 1 - Math.floor(Math.random() * Math.min(16_000, below - 1_025));
    if (!handedOut.has(port) && (await listenOnce(port)) !== undefined) return handOut(port);
  }
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = await listenOnce(0);
    if (port === undefined) break;
    if (!handedOut.has(port)) return handOut(port);
  }
  throw new Error('no free port on 127.0.0.1');
}

/** The ports freePort gave in this process. */
const handedOut = new Set<number>();

function handOut(port: number): number {
  handedOut.add(port);
  return port;
}

/** The first port of Linux's ephemeral range; undefined elsewhere. */
function ephemeralLow(): number | undefined {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return low > 2_048 ? low : undefined;
  } catch {
    return undefined;
  }
}

/** Listens on `port` (0: any) and closes again: the port it had, or undefined when it was taken. */
function listenOnce(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const bound = (server.address() as { port: number }).port;
      server.close(() => resolve(bound));
    });
  });
}
