import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MeteringMessages, QueryMessages, ServiceError } from '@adintel/contracts';
import { fakeMetering, fakeQuery, TRIAL_TOKENS } from '../support/fake-backends';
import { startGateway, TEST_BASE_URL, type Gateway } from '../support/gateway-harness';
import { MediaDir } from '../support/media-dir';
import { TestIssuer } from '../support/test-issuer';

/**
 * The media routes on the whole gateway over real HTTP, reading a real media folder (MEDIA_DIR) in query-api's layout.
 * query-api is the harness's stand-in: it only names the file (`query.media.locate`), as the real one does; the bytes
 * come from the folder. The routes end to end on the four apps: apps/e2e/test/media.e2e.spec.ts.
 */
describe('media routes: bytes from the media store, every read rate-limited, the ETag only to a payer', () => {
  let issuer: TestIssuer;
  let gateway: Gateway;
  const media = new MediaDir();
  const metering = fakeMetering();
  const query = fakeQuery();
  /** 12 MiB: over the 4 MiB parts that used to travel through Redis, and over resources/read's bound. */
  const big = randomBytes(12 * 1024 * 1024);
  const small = randomBytes(5_000);
  const thumbnail = randomBytes(700);
  /** 9.5 MiB: under resources/read's 10 MB bound; four of them fit its 40 MB of held bytes, five do not. */
  const large = randomBytes(9.5 * 1024 * 1024);
  const keys = { big: media.put(big, 'mp4'), small: media.put(small, 'png'), thumbnail: media.put(thumbnail, 'webp'), large: media.put(large, 'png') };
  const BURST = 8;
  // Files of megabytes through real HTTP on a shared machine: more than jest's default 5 s.
  jest.setTimeout(60_000);

  beforeAll(async () => {
    query.on(QueryMessages.locateMedia, ({ creative_id, variant }) => {
      if (creative_id === 'cr-none') throw ServiceError.notFound('creative', 'cr-none');
      if (variant === 'thumbnail') return { key: keys.thumbnail };
      if (creative_id === 'cr-large') return { key: keys.large };
      return { key: creative_id === 'cr-big' ? keys.big : creative_id === 'cr-gone' ? MediaDir.MISSING : keys.small };
    });
    issuer = await TestIssuer.start(TEST_BASE_URL);
    gateway = await startGateway({
      jwksUrl: issuer.jwksUrl,
      query,
      metering: metering.service,
      env: { MEDIA_DIR: media.path, FREE_RATE_LIMIT_BURST: String(BURST), FREE_RATE_LIMIT_PER_MINUTE: '1' },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await issuer?.close();
    media.close();
  });

  const url = (id: string, thumb = false) => `${gateway.url}/api/v1/creo/${id}/media/0${thumb ? '/thumbnail' : ''}`;
  const get = async (id: string, token: string, headers: Record<string, string> = {}, method = 'GET', thumb = false) =>
    fetch(url(id, thumb), { method, headers: { authorization: `Bearer ${token}`, ...headers } });
  const agent = (sub: string) => issuer.token({ sub });

  it('streams a 12 MiB file from the media store, charged once, with nothing but its key over the transport', async () => {
    const token = await agent('media-big');
    const before = query.received.length;
    const res = await get('cr-big', token);
    expect([res.status, res.headers.get('content-length'), res.headers.get('x-tokens-charged')]).toEqual([200, String(big.length), '10']);
    expect(Buffer.from(await res.arrayBuffer()).equals(big)).toBe(true);
    // One message to query-api, naming the file; its answer is a key of 64 hex digits and an extension, no bytes.
    expect(query.received.slice(before).map((m) => m.pattern)).toEqual([QueryMessages.locateMedia.pattern]);
    const range = await get('cr-big', token, { range: 'bytes=5000000-5000099' });
    expect([range.status, range.headers.get('content-range'), range.headers.get('x-tokens-charged')]).toEqual([206, `bytes 5000000-5000099/${big.length}`, '0']);
    expect(Buffer.from(await range.arrayBuffer()).equals(big.subarray(5_000_000, 5_000_100))).toBe(true);
  });

  it('resolves Range against the stored size: suffix, past the end (416 with the size), unreadable (416)', async () => {
    const token = await agent('media-range');
    const suffix = await get('cr-small', token, { range: 'bytes=-100' });
    expect([suffix.status, suffix.headers.get('content-range')]).toEqual([206, `bytes 4900-4999/5000`]);
    expect(Buffer.from(await suffix.arrayBuffer()).equals(small.subarray(4_900))).toBe(true);
    const past = await get('cr-small', token, { range: 'bytes=5000-' });
    expect([past.status, past.headers.get('content-range'), past.headers.get('x-tokens-charged')]).toEqual([416, 'bytes */5000', '0']);
    const unreadable = await get('cr-small', token, { range: 'bytes=x-1' });
    expect(unreadable.status).toBe(416);
  });

  it('says the ETag of a file on HEAD only to a caller who paid for it today; If-None-Match: * gets no 304 of a file', async () => {
    const token = await agent('media-etag');
    const before = await get('cr-small', token, {}, 'HEAD');
    expect([before.status, before.headers.get('content-length'), before.headers.get('etag'), before.headers.get('x-tokens-charged')]).toEqual([200, '5000', null, '0']);
    const star = await get('cr-small', token, { 'if-none-match': '*' });
    expect([star.status, star.headers.get('x-tokens-charged')]).toEqual([200, '10']);
    const etag = String(star.headers.get('etag'));
    expect(etag).toBe(`"${keys.small}"`);
    await star.arrayBuffer();
    const after = await get('cr-small', token, {}, 'HEAD');
    expect(after.headers.get('etag')).toBe(etag);
    const cached = await get('cr-small', token, { 'if-none-match': etag });
    expect([cached.status, cached.headers.get('x-tokens-charged')]).toEqual([304, '0']);
    // Another caller who has not paid: no ETag on HEAD; a thumbnail's is free to know.
    const other = await agent('media-etag-other');
    expect((await get('cr-small', other, {}, 'HEAD')).headers.get('etag')).toBeNull();
    expect((await get('cr-small', other, {}, 'HEAD', true)).headers.get('etag')).toBe(`"${keys.thumbnail}"`);
  });

  it('counts every read against the caller’s free bucket: thumbnails, HEAD, 304, re-reads under the pass, 416', async () => {
    const token = await agent('media-flood');
    const paid = await get('cr-small', token);
    const etag = String(paid.headers.get('etag'));
    await paid.arrayBuffer();
    const reads = [
      () => get('cr-small', token, {}, 'GET', true),
      () => get('cr-small', token, {}, 'HEAD'),
      () => get('cr-small', token, { 'if-none-match': etag }),
      () => get('cr-small', token),
      () => get('cr-small', token, { range: 'bytes=9000-' }),
    ];
    const statuses: number[] = [];
    for (let i = 0; statuses.length < BURST + 2; i++) {
      const res = await (reads[i % reads.length] as () => Promise<Response>)();
      await res.arrayBuffer();
      statuses.push(res.status);
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        break;
      }
    }
    // The paid read took one free call too: BURST - 1 more pass, then 429.
    expect(statuses.slice(0, BURST - 1).every((s) => s !== 429)).toBe(true);
    expect(statuses[BURST - 1]).toBe(429);
  });

  it('answers 404 for what query-api does not name and 503 for a file missing from the store, charging nothing', async () => {
    const token = await agent('media-missing');
    const none = await get('cr-none', token);
    expect([none.status, none.headers.get('x-tokens-charged')]).toEqual([404, '0']);
    const gone = await get('cr-gone', token);
    expect([gone.status, gone.headers.get('x-tokens-charged')]).toEqual([503, '0']);
  });

  it('refuses a resources/read over 10 MB before charging, and reads a small file whole', async () => {
    const token = await agent('media-mcp');
    const client = new Client({ name: 'media-routes-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      await expect(client.readResource({ uri: `${TEST_BASE_URL}/api/v1/creo/cr-big/media/0` })).rejects.toThrow(/over the 10485760-byte bound/);
      const read = await client.readResource({ uri: `${TEST_BASE_URL}/api/v1/creo/cr-small/media/0` });
      const [content] = read.contents;
      expect(content && 'blob' in content ? Buffer.from(content.blob, 'base64').equals(small) : false).toBe(true);
      expect(read._meta).toMatchObject({ tokens_charged: 10 });
      expect(metering.balanceOf('media-mcp')).toBe(TRIAL_TOKENS - 10); // the refused read cost nothing
    } finally {
      await client.close();
    }
  });

  it('holds at most 40 MB of files for resources/read answers at once: the fifth large read is busy, charged nothing', async () => {
    const clients = await Promise.all(
      [1, 2, 3, 4, 5].map(async (n) => {
        const token = await agent(`media-held-${n}`);
        const client = new Client({ name: `media-held-${n}`, version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
        return client;
      }),
    );
    // The reads take their bytes before they are charged: hold every charge until four are waiting on it.
    let release = () => undefined as void;
    const opened = new Promise<void>((done) => (release = done));
    const waiting = () => metering.service.received.filter((m) => m.pattern === MeteringMessages.reserve.pattern && String(m.data['caller_id']).startsWith('media-held')).length;
    metering.service.gate(MeteringMessages.reserve, () => opened);
    try {
      const reads = clients.map((client) => client.readResource({ uri: `${TEST_BASE_URL}/api/v1/creo/cr-large/media/0` }).then(
        (result) => ({ ok: true as const, result }),
        (error: Error & { data?: { status?: number } }) => ({ ok: false as const, error }),
      ));
      const outcomes: { ok: boolean; error?: Error & { data?: { status?: number } } }[] = [];
      const refused = Promise.race(reads.map((read) => read.then((outcome) => (outcome.ok ? new Promise<never>(() => undefined) : outcome))));
      outcomes.push(await refused);
      release();
      const all = await Promise.all(reads);
      expect(all.filter((o) => o.ok)).toHaveLength(4);
      expect(outcomes[0]?.error?.message).toMatch(/too many large media reads/);
      expect(outcomes[0]?.error?.data?.status).toBe(429);
      expect(waiting()).toBe(4);
      for (const [i, outcome] of all.entries()) {
        if (outcome.ok) {
          const [content] = outcome.result.contents;
          expect(content && 'blob' in content ? Buffer.from(content.blob, 'base64').equals(large) : false).toBe(true);
        } else expect(metering.balanceOf(`media-held-${i + 1}`)).toBe(TRIAL_TOKENS);
      }
    } finally {
      metering.service.gate(MeteringMessages.reserve, undefined);
      await Promise.all(clients.map((client) => client.close()));
    }
  });
});
