import * as v2 from '@modelcontextprotocol/client';
import sharp from 'sharp';
import { Redis } from '@adintel/redis';
import { getJson, newAgentToken, register } from './agent';
import { STACK_START_TIMEOUT_MS, startStack, type Stack } from './stack';

const TRIAL = 500;
const ALLOWED = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'video/mp4'];

interface MediaEntry {
  readonly type: string;
  readonly url: string;
  readonly thumbnail_url: string | null;
  readonly bytes: number | null;
  readonly width: number;
  readonly height: number;
}

/**
 * The media routes and MCP resources/read against the built service (four real processes, a private Redis, the
 * seeded store with its rendered demo pictures): what a file costs, when it is free, and every refusal.
 */
describe('media: GET /api/v1/creo/{id}/media/{n} (and /thumbnail), MCP resources/read', () => {
  let stack: Stack;
  let base: string;
  /** Creatives whose first media entry is a stored picture, each with its entries. */
  let creatives: { id: string; media: MediaEntry[] }[];

  beforeAll(async () => {
    stack = await startStack();
    base = stack.baseUrl;
    const { token } = await newAgentToken(base);
    const { body } = await getJson(base, token, '/api/v1/creo?limit=100&fields=id');
    creatives = [];
    for (const { id } of body['data'] as { id: string }[]) {
      const creative = (await getJson(base, token, `/api/v1/creo/${encodeURIComponent(id)}`)).body as { id: string; media: MediaEntry[] };
      if (creative.media[0]?.bytes != null) creatives.push(creative);
      if (creatives.length === 8) break;
    }
    if (creatives.length < 8) throw new Error(`the seeded store has only ${creatives.length} creatives with pictures in its first 100`);
  }, STACK_START_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  const get = (url: string, token: string | undefined, headers: Record<string, string> = {}, method = 'GET') =>
    fetch(url, { method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });
  const bytesOf = async (res: Response) => Buffer.from(await res.arrayBuffer());
  const usage = async (token: string) => (await getJson(base, token, '/api/v1/usage')).body as { used: number; remaining: number; reserved: number };
  // beforeAll found eight creatives with pictures or threw
  const creativeAt = (i: number) => {
    const creative = creatives[i];
    if (!creative) throw new Error(`no creative ${i}: beforeAll found ${creatives.length}`);
    return creative;
  };
  const mediaAt = (i: number): MediaEntry => {
    const [entry] = creativeAt(i).media;
    if (!entry) throw new Error(`creative ${i} has no media`);
    return entry;
  };

  const fileHeaders = (res: Response) => ({
    type: res.headers.get('content-type'),
    nosniff: res.headers.get('x-content-type-options'),
    cache: res.headers.get('cache-control'),
  });

  it('serves a thumbnail free: WebP that decodes, within 256 px, nosniff', async () => {
    const { token } = await newAgentToken(base);
    const entry = mediaAt(0);
    const res = await get(String(entry.thumbnail_url), token);
    expect(res.status).toBe(200);
    expect(fileHeaders(res)).toEqual({ type: 'image/webp', nosniff: 'nosniff', cache: 'private, no-cache' });
    expect(res.headers.get('x-tokens-charged')).toBe('0');
    const meta = await sharp(await bytesOf(res)).metadata();
    expect(meta.format).toBe('webp');
    expect(Math.max(meta.width ?? 0, meta.height ?? 0)).toBeLessThanOrEqual(256);
    expect(await usage(token)).toMatchObject({ used: 0, remaining: TRIAL });
  });

  it('charges a full file 10 tokens once a day per caller: later reads, ranges and a 304 are free', async () => {
    const { token } = await newAgentToken(base);
    const entry = mediaAt(1);
    const res = await get(entry.url, token);
    expect(res.status).toBe(200);
    expect(ALLOWED).toContain(res.headers.get('content-type'));
    expect(fileHeaders(res)).toMatchObject({ nosniff: 'nosniff', cache: 'private, no-cache' });
    expect([res.headers.get('x-tokens-charged'), res.headers.get('x-tokens-remaining')]).toEqual(['10', String(TRIAL - 10)]);
    const etag = String(res.headers.get('etag'));
    expect(etag).toMatch(/^"[0-9a-f]{64}\.\w+"$/);
    const file = await bytesOf(res);
    expect(file.length).toBe(entry.bytes);
    const meta = await sharp(file).metadata();
    expect([meta.width, meta.height]).toEqual([entry.width, entry.height]);

    const again = await get(entry.url, token);
    expect([again.status, again.headers.get('x-tokens-charged')]).toEqual([200, '0']);
    expect((await bytesOf(again)).equals(file)).toBe(true);

    const range = await get(entry.url, token, { range: 'bytes=10-109' });
    expect([range.status, range.headers.get('content-range'), range.headers.get('x-tokens-charged')]).toEqual([206, `bytes 10-109/${file.length}`, '0']);
    expect((await bytesOf(range)).equals(file.subarray(10, 110))).toBe(true);
    const suffix = await get(entry.url, token, { range: 'bytes=-50' });
    expect([suffix.status, suffix.headers.get('content-range')]).toEqual([206, `bytes ${file.length - 50}-${file.length - 1}/${file.length}`]);
    expect((await bytesOf(suffix)).equals(file.subarray(file.length - 50))).toBe(true);
    const open = await get(entry.url, token, { range: `bytes=${file.length - 5}-` });
    expect([open.status, (await bytesOf(open)).length]).toEqual([206, 5]);
    // Several ranges: the whole file (see docs/media.md).
    const several = await get(entry.url, token, { range: 'bytes=0-1,5-9' });
    expect([several.status, (await bytesOf(several)).length]).toEqual([200, file.length]);

    const past = await get(entry.url, token, { range: `bytes=${file.length}-` });
    expect([past.status, past.headers.get('content-range'), past.headers.get('content-type')]).toEqual([416, `bytes */${file.length}`, 'application/problem+json; charset=utf-8']);
    expect(await past.json()).toMatchObject({ status: 416, code: 'range_not_satisfiable', errors: [{ field: 'Range' }] });
    const unreadable = await get(entry.url, token, { range: 'bytes=abc' });
    expect(unreadable.status).toBe(416);
    await unreadable.body?.cancel();

    const cached = await get(entry.url, token, { 'if-none-match': etag });
    expect([cached.status, cached.headers.get('etag'), cached.headers.get('x-tokens-charged')]).toEqual([304, etag, '0']);
    const head = await get(entry.url, token, {}, 'HEAD');
    expect([head.status, head.headers.get('content-length'), head.headers.get('x-tokens-charged')]).toEqual([200, String(file.length), '0']);

    expect(await usage(token)).toMatchObject({ used: 10, reserved: 0 });
    const { body } = await getJson(base, token, '/api/v1/usage/events?limit=10');
    expect(body['data']).toEqual([expect.objectContaining({ tool: 'media_file', charged: 10 })]);
  });

  it('keeps the day pass in the gateway Redis under its prefix with a TTL; without it the file is charged again; a 304 never is', async () => {
    const { token } = await newAgentToken(base);
    const entry = mediaAt(2);
    const first = await get(entry.url, token);
    const etag = String(first.headers.get('etag'));
    expect(first.headers.get('x-tokens-charged')).toBe('10');
    await first.body?.cancel();
    const redis = new Redis(stack.redisUrl);
    try {
      const keys = await redis.keys(`gateway:media-pass:*:${encodeURIComponent(creativeAt(2).id)}:0`);
      expect(keys).toHaveLength(1);
      const [key = ''] = keys; // present: the length was just asserted
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(86_400 + 60);
      await redis.del(key);
    } finally {
      redis.disconnect();
    }
    const cached = await get(entry.url, token, { 'if-none-match': `W/${etag}, "other"` });
    expect([cached.status, cached.headers.get('x-tokens-charged')]).toEqual([304, '0']);
    const again = await get(entry.url, token, { range: 'bytes=0-9' });
    expect([again.status, again.headers.get('x-tokens-charged')]).toEqual([206, '10']);
    await again.body?.cancel();
    expect(await usage(token)).toMatchObject({ used: 20 });
  });

  it('replays an Idempotency-Key free, refuses it for another file, and charges concurrent first ranges once', async () => {
    const { token } = await newAgentToken(base);
    const entry = mediaAt(3);
    const key = { 'idempotency-key': `media-${Date.now()}` };
    const first = await get(entry.url, token, key);
    expect(first.headers.get('x-tokens-charged')).toBe('10');
    const file = await bytesOf(first);
    // The pass would make the repeat free anyway: drop it, so the replay is what is free.
    const redis = new Redis(stack.redisUrl);
    try {
      for (const k of await redis.keys(`gateway:media-pass:*:${encodeURIComponent(creativeAt(3).id)}:0`)) await redis.del(k);
    } finally {
      redis.disconnect();
    }
    const replay = await get(entry.url, token, key);
    expect([replay.status, replay.headers.get('x-tokens-charged'), replay.headers.get('idempotent-replay')]).toEqual([200, '0', 'true']);
    expect((await bytesOf(replay)).equals(file)).toBe(true);
    const other = await get(mediaAt(4).url, token, key);
    expect(other.status).toBe(409);
    await other.body?.cancel();

    const video = mediaAt(5);
    const ranges = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => get(video.url, token, { range: `bytes=${i * 10}-${i * 10 + 9}` })));
    expect(ranges.map((r) => r.status)).toEqual([206, 206, 206, 206, 206, 206]);
    expect(ranges.map((r) => Number(r.headers.get('x-tokens-charged'))).reduce((a, b) => a + b, 0)).toBe(10);
    await Promise.all(ranges.map((r) => r.body?.cancel()));
    expect(await usage(token)).toMatchObject({ used: 20, reserved: 0 });
  });

  it('answers 402 before any work when the balance is short; the thumbnail stays free', async () => {
    const { token } = await newAgentToken(base);
    for (let i = 0; i < 5; i++) expect((await getJson(base, token, '/api/v1/ads?limit=100')).res.headers.get('x-tokens-charged')).toBe('100');
    const entry = mediaAt(6);
    const res = await get(entry.url, token);
    expect([res.status, res.headers.get('x-tokens-charged')]).toEqual([402, '0']);
    expect(await res.json()).toMatchObject({ status: 402, code: 'insufficient_balance', needed: 10, remaining: 0 });
    const thumbnail = await get(String(entry.thumbnail_url), token);
    expect(thumbnail.status).toBe(200);
    await thumbnail.body?.cancel();
  });

  it('refuses bad paths by name: unknown creative or index 404, malformed id or n 400, no token 401', async () => {
    const { token } = await newAgentToken(base);
    const { id, media } = creativeAt(0);
    const entry = mediaAt(0);
    const at = (path: string) => `${base}/api/v1${path}`;
    const cases: [string, number, string?][] = [
      [`/creo/no-such-creative/media/0`, 404],
      [`/creo/${id}/media/${media.length}`, 404],
      [`/creo/${id}/media/${media.length}/thumbnail`, 404],
      [`/creo/${id}/media/50`, 404],
      [`/creo/${id}/media/abc`, 400, 'n'],
      [`/creo/${id}/media/-1/thumbnail`, 400, 'n'],
      [`/creo/${'x'.repeat(129)}/media/0`, 400, 'id'],
    ];
    for (const [path, status, field] of cases) {
      const res = await get(at(path), token);
      const problem = (await res.json()) as { status: number; errors?: { field: string }[] };
      expect([path, res.status, res.headers.get('content-type'), res.headers.get('x-tokens-charged')]).toEqual([path, status, 'application/problem+json; charset=utf-8', '0']);
      expect(problem.status).toBe(status);
      if (field) expect(problem.errors).toEqual([expect.objectContaining({ field })]);
    }
    const post = await get(entry.url, token, {}, 'POST');
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    await post.body?.cancel();
    const anonymous = await get(entry.url, undefined);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
    await anonymous.body?.cancel();
    expect(await usage(token)).toMatchObject({ used: 0 });
  });

  describe('MCP resources/read of the media URL', () => {
    async function connect(revision: '2026-07-28' | '2025-11-25') {
      const client = await register(base);
      // The stack's issuer is its public origin (AUTH_ISSUER defaults to PUBLIC_BASE_URL): credentials go nowhere else.
      const authProvider = new v2.ClientCredentialsProvider({ clientId: client.client_id, clientSecret: client.client_secret, scope: 'mcp:read', expectedIssuer: base });
      const mcp = new v2.Client({ name: 'e2e-media', version: '1.0.0' }, { versionNegotiation: { mode: revision === '2026-07-28' ? { pin: revision } : 'legacy' } });
      await mcp.connect(new v2.StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider, onInsufficientScope: 'throw' }));
      return mcp;
    }

    it.each(['2026-07-28', '2025-11-25'] as const)('reads a file as a blob, charged 10 with a receipt, on %s; thumbnails free; views still read', async (revision) => {
      const mcp = await connect(revision);
      try {
        expect(mcp.getNegotiatedProtocolVersion()).toBe(revision);
        const { resourceTemplates } = await mcp.listResourceTemplates();
        expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([`${base}/api/v1/creo/{id}/media/{n}`, `${base}/api/v1/creo/{id}/media/{n}/thumbnail`]);

        const entry = mediaAt(revision === '2026-07-28' ? 7 : 0);
        const read = await mcp.readResource({ uri: entry.url });
        const [content] = read.contents as { uri: string; mimeType?: string; blob?: string }[];
        expect(content?.uri).toBe(entry.url);
        expect(ALLOWED).toContain(content?.mimeType);
        const meta = await sharp(Buffer.from(String(content?.blob), 'base64')).metadata();
        expect([meta.width, meta.height]).toEqual([entry.width, entry.height]);
        expect(read._meta).toMatchObject({ tokens_charged: 10, tokens_remaining: TRIAL - 10 });
        if (revision === '2026-07-28') expect(read).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
        else expect(read).not.toHaveProperty('cacheScope');

        const again = await mcp.readResource({ uri: entry.url });
        expect(again._meta).toMatchObject({ tokens_charged: 0 });
        const thumbnail = await mcp.readResource({ uri: String(entry.thumbnail_url) });
        expect((thumbnail.contents[0] as { mimeType?: string }).mimeType).toBe('image/webp');
        expect(thumbnail._meta).toMatchObject({ tokens_charged: 0 });

        const { resources } = await mcp.listResources();
        const [listed] = resources;
        if (!listed) throw new Error('resources/list named no resource');
        const view = await mcp.readResource({ uri: listed.uri });
        expect((view.contents[0] as { text?: string }).text).toContain('<html');

        await expect(mcp.readResource({ uri: `${base}/api/v1/creo/no-such-creative/media/0` })).rejects.toThrow();
        await expect(mcp.readResource({ uri: `${base}/api/v1/creo/${creativeAt(0).id}/media/abc` })).rejects.toThrow(/\bn\b/);
      } finally {
        await mcp.close();
      }
    });
  });
});
