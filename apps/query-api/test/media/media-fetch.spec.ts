/**
 * Fetching http(s) media URLs at ingest (MEDIA_FETCH), through MediaIngest and libs/public-fetch, against a real local
 * HTTP server. The server is on loopback, so the fetcher here is built with the test-only `allowLoopback` (as the
 * auth server's tests do for its metadata documents); one case builds it without, and the guard refuses the server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { PublicFetcher } from '@adintel/public-fetch';
import { FilesystemMediaStore } from '../../src/media/filesystem-media-store';
import { MediaIngest } from '../../src/media/media-ingest';
import { MAX_IMAGE_BYTES, MediaLibrary, MediaStoreError } from '../../src/media/media-library';
import type { AdRecord } from '../../src/store/ad-store.port';
import { FIXTURE_RECORDS } from '../store/store-fixture';

const TIMEOUT_MS = 2_000;

describe('fetching http(s) media at ingest (real local HTTP server)', () => {
  let server: Server;
  let base: string;
  let dir: string;
  let media: FilesystemMediaStore;
  let png: Buffer;
  const fetchers: PublicFetcher[] = [];
  const hits: string[] = [];

  beforeAll(async () => {
    png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } }).png().toBuffer();
    const big = Buffer.alloc(MAX_IMAGE_BYTES + 1024, 1);
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      switch (req.url) {
        case '/ok.png':
          res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
          return;
        case '/moved.png':
          res.writeHead(302, { location: '/ok.png' }).end();
          return;
        case '/page.png':
          res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not a picture</html>');
          return;
        case '/svg.png':
          res.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg xmlns="http://www.w3.org/2000/svg"/>');
          return;
        case '/declared-big.png':
          res.writeHead(200, { 'content-type': 'image/png', 'content-length': big.length }).end(big);
          return;
        case '/streamed-big.png':
          // No Content-Length: the size bound holds while reading.
          res.writeHead(200, { 'content-type': 'image/png', 'transfer-encoding': 'chunked' });
          res.end(big);
          return;
        case '/slow.png':
          res.writeHead(200, { 'content-type': 'image/png' });
          res.write(png.subarray(0, 10)); // and never the rest
          return;
        default:
          res.writeHead(404).end();
      }
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'query-media-fetch-'));
    media = new FilesystemMediaStore(join(dir, 'media'));
  });

  afterAll(async () => {
    await Promise.all(fetchers.map((f) => f.close()));
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
    rmSync(dir, { recursive: true, force: true });
  });

  const fetcher = (allowLoopback: boolean) => {
    const made = new PublicFetcher({ timeoutMs: TIMEOUT_MS, maxBytes: 200 * 1024 * 1024, allowLoopback });
    fetchers.push(made);
    return made;
  };
  const adWith = (id: string, url: string): AdRecord => ({
    ...(FIXTURE_RECORDS[0] as AdRecord),
    id,
    media: [{ type: 'image', url, width: 10, height: 10, duration_seconds: null }],
  });
  const ingest = (f: PublicFetcher | null, ...ads: AdRecord[]) => new MediaIngest(new MediaLibrary(media), null, undefined, f).resolve(ads);

  it('stores an allowed image it fetched, with its decoded size and a thumbnail', async () => {
    const { records, rejected } = await ingest(fetcher(true), adWith('ad_ok', `${base}/ok.png`));
    expect(rejected).toEqual([]);
    const stored = records[0]?.media[0]?.stored;
    expect(stored).toMatchObject({ type: 'image', mime: 'image/png', width: 64, height: 48, bytes: png.length });
    const file = await media.get(stored?.key as string);
    expect(file?.body.equals(png)).toBe(true);
    expect(await media.get(stored?.thumbnail_key as string)).not.toBeNull();
  });

  it('rejects the line of a redirect, a wrong type, an oversized answer and a timeout, each with its reason', async () => {
    const ads = ['moved', 'page', 'svg', 'declared-big', 'streamed-big', 'slow'].map((name) => adWith(`ad_${name}`, `${base}/${name}.png`));
    const { records, rejected } = await ingest(fetcher(true), ...ads);
    expect(records).toEqual([]);
    const reasons = Object.fromEntries(rejected.map((row) => [row.id, row.reason]));
    const prefix = (name: string) => `media[0]: fetching "${base}/${name}.png": `;
    expect(reasons).toEqual({
      ad_moved: `${prefix('moved')}answered 302 (a redirect; redirects are not followed)`,
      ad_page: `${prefix('page')}Content-Type text/html is not allowed (image/png, image/jpeg, image/webp, image/gif)`,
      ad_svg: `${prefix('svg')}Content-Type image/svg+xml is not allowed (image/png, image/jpeg, image/webp, image/gif)`,
      'ad_declared-big': `${prefix('declared-big')}larger than ${MAX_IMAGE_BYTES} bytes (Content-Length ${MAX_IMAGE_BYTES + 1024})`,
      'ad_streamed-big': `${prefix('streamed-big')}larger than ${MAX_IMAGE_BYTES} bytes`,
      ad_slow: `${prefix('slow')}no complete answer within ${TIMEOUT_MS} ms`,
    });
    // The redirect was not followed: /ok.png was not asked for by this test.
    expect(hits.filter((url) => url === '/ok.png')).toHaveLength(1);
  });

  it('with the guard on, refuses a loopback address given as an IP or reached through a name, before any request', async () => {
    const before = hits.length;
    const port = (server.address() as AddressInfo).port;
    const { rejected } = await ingest(fetcher(false), adWith('ad_ip', `${base}/ok.png`), adWith('ad_name', `http://localhost:${port}/ok.png`));
    expect(Object.fromEntries(rejected.map((row) => [row.id, row.reason]))).toEqual({
      ad_ip: `media[0]: fetching "${base}/ok.png": refused address: 127.0.0.1 is a loopback address`,
      ad_name: expect.stringMatching(/^media\[0\]: fetching "http:\/\/localhost:\d+\/ok\.png": localhost resolves to a refused address: (127\.0\.0\.1|::1) is a loopback address$/),
    });
    expect(hits.length).toBe(before);
    for (const address of ['10.0.0.7', '192.168.1.1', '169.254.169.254', '[::1]', '[fd00::1]']) {
      const result = await fetcher(false).fetch(`http://${address}/x.png`, { allowedTypes: ['image/png'] });
      expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/^refused address: /) });
    }
  });

  it('fails the run, rather than rejecting the line, when the media store cannot keep the file, and leaves no write behind', async () => {
    const blocker = join(dir, 'not-a-folder');
    writeFileSync(blocker, 'a file where the media folder should be');
    /** Counts the puts asked of it once the run has failed (a CI run's thumbnail put came after the test's end). */
    class WatchedStore extends FilesystemMediaStore {
      failed = false;
      late = 0;
      override put(...args: Parameters<FilesystemMediaStore['put']>) {
        if (this.failed) this.late++;
        return super.put(...args);
      }
    }
    const store = new WatchedStore(join(blocker, 'media'));
    const broken = new MediaIngest(new MediaLibrary(store), null, undefined, fetcher(true));
    await expect(broken.resolve([adWith('ad_store_down', `${base}/ok.png`)])).rejects.toBeInstanceOf(MediaStoreError);
    store.failed = true;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(store.late).toBe(0);
  });

  it('keeps an http(s) URL without a file when fetching is off (no fetcher), as before', async () => {
    const before = hits.length;
    const { records, rejected } = await ingest(null, adWith('ad_off', `${base}/ok.png`));
    expect(rejected).toEqual([]);
    expect(records[0]?.media[0]).toEqual({ type: 'image', url: `${base}/ok.png`, width: 10, height: 10, duration_seconds: null });
    expect(hits.length).toBe(before);
  });
});
