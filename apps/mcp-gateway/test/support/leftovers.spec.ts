import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeLeftovers, tracked } from './leftovers';

/** A listening server, tracked as the harness tracks its gateways and issuers. */
async function listening() {
  const server = createServer((_req, res) => res.end('ok'));
  const close = tracked(() => new Promise<void>((resolve) => server.close(() => resolve())));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close, server };
}

describe('servers a suite leaves open', () => {
  it('are closed at the end of the suite; those the suite closed itself are not closed twice', async () => {
    const closedBySuite = await listening();
    const leftOpen = await listening();
    await closedBySuite.close();

    expect(await closeLeftovers()).toBe(1);
    expect(leftOpen.server.listening).toBe(false);
    await expect(fetch(leftOpen.url)).rejects.toThrow();
    expect(await closeLeftovers()).toBe(0);
  });
});
