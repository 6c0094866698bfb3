/**
 * The guard's decisions that need no server (the fetches themselves, against a real local HTTP server, are pinned by
 * apps/query-api/test/media/media-fetch.spec.ts; the address ranges by apps/auth-server's metadata document tests).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkAddress, PublicFetcher } from '../src';

describe('PublicFetcher', () => {
  const fetcher = new PublicFetcher({ timeoutMs: 1_000, maxBytes: 1_000 });
  afterAll(() => fetcher.close());
  const image = { allowedTypes: ['image/png'] };

  it('refuses what is not an http(s) URL, and user info, before any connection', async () => {
    expect(await fetcher.fetch('ftp://example.com/a.png', image)).toEqual({ ok: false, reason: 'not an http(s) URL' });
    expect(await fetcher.fetch('file:///etc/passwd', image)).toEqual({ ok: false, reason: 'not an http(s) URL' });
    expect(await fetcher.fetch('not a url', image)).toEqual({ ok: false, reason: 'not an http(s) URL' });
    expect(await fetcher.fetch('https://user:pw@example.com/a.png', image)).toEqual({ ok: false, reason: 'the URL must not carry user info' });
  });

  it('refuses private, loopback, link-local and mapped addresses given as IPs', async () => {
    const cases: [string, string][] = [
      ['http://127.0.0.1/a.png', '127.0.0.1 is a loopback address'],
      ['http://10.1.2.3/a.png', '10.1.2.3 is a private address'],
      ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a linkLocal address'],
      ['http://[::ffff:192.168.0.1]/a.png', '::ffff:c0a8:1 is a private address'], // the URL parser writes it in hex,
      ['http://[64:ff9b::a00:1]/a.png', '64:ff9b::a00:1 is in 64:ff9b::/96, not the public internet'],
    ];
    for (const [url, reason] of cases) expect(await fetcher.fetch(url, image)).toEqual({ ok: false, reason: `refused address: ${reason}` });
  });

  it('refuses a name that resolves to loopback, in the connection itself (a real server listens there)', async () => {
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end('x'));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    let hits = 0;
    server.on('request', () => hits++);
    try {
      const result = await fetcher.fetch(`http://localhost:${(server.address() as AddressInfo).port}/a.png`, image);
      expect(result).toEqual({ ok: false, reason: expect.stringMatching(/^localhost resolves to a refused address: (127\.0\.0\.1|::1) is a loopback address$/) });
      expect(hits).toBe(0);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it.each(['::a00:1', '::808:808', '3fff::1', '3fff:fff:ffff::1', '5f00::1', '5f00:ffff::1'])(
    'refuses %s: IPv4-compatible (::/96), documentation (3fff::/20) and SRv6 (5f00::/16), which ipaddr.js 1.9.1 calls unicast',
    (address) => {
      expect(checkAddress(address, false)).toMatchObject({ ok: false, reason: expect.stringMatching(/not the public internet/) });
    },
  );

  it('allows the public internet', () => {
    expect(checkAddress('8.8.8.8', false)).toEqual({ ok: true });
    expect(checkAddress('127.0.0.1', true)).toEqual({ ok: true });
    expect(checkAddress('::1', true)).toEqual({ ok: true });
    expect(checkAddress('2a00:1450::1', false)).toEqual({ ok: true });
    expect(checkAddress('4000::1', false)).toEqual({ ok: true });
    expect(checkAddress('10.0.0.1', true)).toMatchObject({ ok: false });
  });
});
