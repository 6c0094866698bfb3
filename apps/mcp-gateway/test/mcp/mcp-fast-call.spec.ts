import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from '@adintel/testing';
import { QueryMessages, ServiceError } from '@adintel/contracts';
import { McpServerFactory } from '../../src/mcp/mcp-server.factory';
import { MediaDir } from '../support/media-dir';
import { TestIssuer } from '../support/test-issuer';
import { fakeMetering, fakeQuery, sampleAd } from '../support/fake-backends';
import { startGateway, TEST_BASE_URL, type Gateway } from '../support/gateway-harness';

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
/** Headers that describe the connection or the moment, not the answer. */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/**
 * The gateway answers a plain tools/call itself (mcp-fast-call.ts) and claims to answer it exactly as the SDK would.
 * Two gateways over the same kind of fake backends, one with MCP_FAST_PATH on and one with it off (every request
 * through the SDK), get the same requests in the same order; their answers must be the same on both revisions:
 * status, headers, and body, but for the request id each HTTP request gets.
 */
/**
 * The comparison below holds for the SDK that runs it. package.json pins the MCP SDK packages exactly (no range), so a
 * new SDK arrives only by a deliberate bump, and this test runs against that version (see the README: upgrading the
 * MCP SDK). A lock file or node_modules out of step with the pin fails here first.
 */
describe('the MCP SDK the comparison runs against', () => {
  const manifest = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  const pins = Object.entries({ ...manifest.dependencies, ...manifest.devDependencies }).filter(([name]) => name.startsWith('@modelcontextprotocol/'));

  it.each(pins)('%s is pinned exactly, and installed at that version', (name, pin) => {
    expect(pin).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
    const installed = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
    expect(installed.version).toBe(pin);
  });
});

describe('the gateway answers a plain tools/call itself, exactly as the SDK would (both revisions)', () => {
  let issuer: TestIssuer;
  const media = new MediaDir();
  let fast: Gateway;
  let sdk: Gateway;
  const meterings = { fast: fakeMetering(), sdk: fakeMetering() };
  // Every SDK answer builds a server through the factory; the fast path never does.
  const serversBuilt = jest.spyOn(McpServerFactory.prototype, 'create');

  /**
   * The fake query-api, with an ad whose media has a stored file and a thumbnail, and the media reads behind them
   * (a 1x1 PNG), so a result that carries pictures is compared with them.
   */
  const query = () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const adDetail = {
      ...sampleAd(1),
      media: [
        {
          type: 'image',
          url: '/api/v1/creo/cr-1/media/0',
          width: 600,
          height: 400,
          duration_seconds: null,
          bytes: 2048,
          thumbnail_url: '/api/v1/creo/cr-1/media/0/thumbnail',
        },
      ],
      advertiser: { id: 'adv-1', name: 'Advertiser 1', platforms: ['facebook'] },
      webmaster: null,
    };
    return fakeQuery(7)
      .on(QueryMessages.getAd, (args) => {
        if (args['id'] !== 'ad-1') throw ServiceError.notFound('ad', String(args['id']));
        return adDetail;
      })
      .on(QueryMessages.locateMedia, () => ({ key: media.put(Buffer.from(png, 'base64'), 'png') }));
  };

  beforeAll(async () => {
    issuer = await TestIssuer.start(TEST_BASE_URL);
    fast = await startGateway({ jwksUrl: issuer.jwksUrl, query: query(), metering: meterings.fast.service, env: { MCP_FAST_PATH: 'true', MEDIA_DIR: media.path } });
    sdk = await startGateway({ jwksUrl: issuer.jwksUrl, query: query(), metering: meterings.sdk.service, env: { MCP_FAST_PATH: 'false', MEDIA_DIR: media.path } });
  });
  afterAll(async () => {
    serversBuilt.mockRestore();
    await fast.close();
    await sdk.close();
    await issuer.close();
    media.close();
  });

  function post(gateway: Gateway, body: unknown, headers: Record<string, string>): Promise<Answer> {
    const { hostname, port } = new URL(gateway.url);
    return new Promise((resolve, reject) => {
      const call = request({ host: hostname, port, path: '/mcp', method: 'POST', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      });
      call.on('error', reject);
      call.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
  }

  /** What must be equal: the status, every header that describes the answer, and the body as JSON (or text). */
  function comparable(answer: Answer) {
    // The request id (in _meta, and escaped in a problem's text) differs per HTTP request, and nothing else may.
    const text = answer.text.replace(/(\\?"request_id\\?":\\?")[^"\\]*/g, '$1-');
    const headers = Object.fromEntries(
      Object.entries(answer.headers)
        .filter(([name]) => !TRANSPORT_HEADERS.has(name))
        .map(([name, value]) => [name, name === 'x-request-id' ? typeof value : value]),
    );
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : text;
    } catch {
      // an SSE stream or an empty answer: compared as text
    }
    return { status: answer.status, headers, body };
  }

  interface Sent {
    readonly body: unknown;
    readonly headers?: Record<string, string>;
    /** Whether the fast path should answer it (else the SDK answers on both gateways). */
    readonly fastPath: boolean;
    readonly sub?: string;
  }

  /** Sends the same request to both gateways and expects the same answer; returns the fast gateway's, parsed. */
  async function same({ body, headers = {}, fastPath, sub = 'fast-path-agent' }: Sent) {
    const token = await issuer.token({ sub });
    const all = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers };
    const before = serversBuilt.mock.calls.length;
    const fastAnswer = await post(fast, body, all);
    const builtByFast = serversBuilt.mock.calls.length - before;
    const sdkAnswer = await post(sdk, body, all);
    const builtBySdk = serversBuilt.mock.calls.length - before - builtByFast;
    expect(comparable(fastAnswer)).toEqual(comparable(sdkAnswer));
    // The fast path builds no server where the SDK builds one; anything else takes the same route on both gateways.
    expect({ body, builtByFast, builtBySdk }).toEqual({ body, builtByFast: fastPath ? 0 : builtBySdk, builtBySdk: fastPath ? 1 : builtBySdk });
    return comparable(fastAnswer) as { status: number; headers: Record<string, unknown>; body: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- a JSON-RPC answer, read field by field
  }

  const call = (id: unknown, name: string, args: object = {}, meta?: object) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, ...(meta && { _meta: meta }) },
  });
  /** A 2026-07-28 tools/call: the envelope in `_meta` and the three standard headers. */
  const modern = (id: unknown, name: string, args: object = {}, meta: object = {}, headers: Record<string, string> = {}): Sent => ({
    body: call(id, name, args, { ...ENVELOPE, ...meta }),
    headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name, ...headers },
    fastPath: true,
  });
  const legacy = (id: unknown, name: string, args: object = {}, meta?: object, headers: Record<string, string> = {}): Sent => ({
    body: call(id, name, args, meta),
    headers,
    fastPath: true,
  });

  for (const era of ['2025-11-25', MODERN] as const) {
    const sent = era === MODERN ? modern : legacy;
    const stamp = era === MODERN ? { resultType: 'complete' } : {};

    describe(`on ${era}`, () => {
      it('a paid call with its receipt, a free call, and a detail with media', async () => {
        const paid = await same(sent(1, 'search_ads', { country: 'us', limit: 2 }));
        expect(paid.status).toBe(200);
        expect(paid.headers['content-type']).toMatch(/^application\/json/);
        expect(paid.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { ...stamp, _meta: { tokens_charged: 2 } } });
        expect(paid.body['result'].structuredContent.data).toHaveLength(2);

        const free = await same(sent('free-1', 'get_catalog'));
        expect(free.body).toMatchObject({ id: 'free-1', result: { ...stamp, structuredContent: { interface_version: '1.0.0' }, _meta: { tokens_charged: 0 } } });
        const detail = await same(sent('detail', 'get_ad', { id: 'ad-1' }));
        expect(detail.body['result'].structuredContent).toMatchObject({ id: 'ad-1', media: [expect.objectContaining({ type: 'image' })] });
      });

      it('problem results: a bad argument, a missing ad, a short balance (402)', async () => {
        const bad = await same(sent(2, 'search_ads', { limit: 1000 }));
        expect(bad.body['result']).toMatchObject({ ...stamp, isError: true, _meta: { problem: { status: 400 } } });
        const missing = await same(sent(3, 'get_ad', { id: 'ad-404' }));
        expect(missing.body['result']).toMatchObject({ isError: true, _meta: { problem: { status: 404 } } });

        const sub = `short-${era}`;
        meterings.fast.balances.set(sub, 4);
        meterings.sdk.balances.set(sub, 4);
        const short = await same({ ...sent(4, 'search_ads', { limit: 20 }), sub });
        expect(short.body['result']).toMatchObject({ isError: true, _meta: { tokens_charged: 0, problem: { status: 402, needed: 20, remaining: 4 } } });
      });

      it('an unknown tool is a JSON-RPC -32602', async () => {
        const unknown = await same(sent(5, 'drop_tables'));
        expect(unknown.status).toBe(200);
        expect(unknown.body).toMatchObject({ id: 5, error: { code: -32602, message: expect.stringContaining('drop_tables') } });
        expect(unknown.body).not.toHaveProperty('result');
      });

      it('an idempotent replay, keyed in _meta or by the Idempotency-Key header', async () => {
        const key = `fast-${era}-${Date.now()}`;
        const first = await same(sent(6, 'search_ads', { limit: 3 }, { idempotency_key: key }));
        const again = await same(sent(7, 'search_ads', { limit: 3 }, undefined, { 'idempotency-key': key }));
        expect(first.body['result']._meta).toMatchObject({ tokens_charged: 3 });
        expect(again.body['result']._meta).toMatchObject({ tokens_charged: 0, idempotent_replay: true });
        expect(again.body['result'].structuredContent).toEqual(first.body['result'].structuredContent);
      });

      it('an id of each type: string, empty string, zero, negative; a fractional or unsafe one is the SDK’s', async () => {
        for (const id of ['call-x', '', 0, -12, Number.MAX_SAFE_INTEGER]) {
          expect((await same(sent(id, 'get_catalog'))).body['id']).toEqual(id);
        }
        for (const id of [1.5, 2 ** 60]) await same({ ...sent(id, 'get_catalog'), fastPath: false });
      });

      it('leaves to the SDK what it is not sure of: a notification, SSE, a progress token, an extra member, a task', async () => {
        const notification = { ...sent(null, 'get_catalog') };
        delete (notification.body as { id?: unknown }).id;
        expect((await same({ ...notification, fastPath: false })).status).toBe(202);

        const sse = await same({ ...sent(8, 'get_catalog'), headers: { ...sent(8, 'get_catalog').headers, accept: 'text/event-stream' }, fastPath: false });
        expect(sse.headers['content-type']).toBe('text/event-stream');
        await same({ ...sent(9, 'get_catalog', {}, { progressToken: 'p-1' }), fastPath: false });
        const withExtra = sent(10, 'get_catalog');
        await same({ ...withExtra, body: { ...(withExtra.body as object), extra: true }, fastPath: false });
        const withTask = sent(11, 'get_catalog');
        const body = withTask.body as { params: Record<string, unknown> };
        await same({ ...withTask, body: { ...body, params: { ...body.params, task: { ttl: 1000 } } }, fastPath: false });
      });
    });
  }

  describe('standard headers', () => {
    it('2026-07-28: a wrong or missing Mcp-Name, Mcp-Method or MCP-Protocol-Version is the SDK’s 400 (-32020)', async () => {
      for (const headers of [{ 'mcp-name': 'search_ads' }, { 'mcp-method': 'tools/list' }, { 'mcp-protocol-version': '2025-11-25' }] as Record<string, string>[]) {
        const answer = await same({ ...modern(12, 'get_catalog', {}, {}, headers), fastPath: false });
        expect([headers, answer.status, answer.body['error']?.code]).toEqual([headers, 400, -32020]);
      }
      for (const name of ['mcp-name', 'mcp-method', 'mcp-protocol-version']) {
        const sent = modern(13, 'get_catalog');
        const headers = { ...sent.headers };
        delete headers[name];
        const answer = await same({ ...sent, headers, fastPath: false });
        expect([name, answer.status, answer.body['error']?.code]).toEqual([name, 400, -32020]);
      }
    });

    it('2026-07-28: a Base64-encoded Mcp-Name is decoded by the SDK', async () => {
      const encoded = `=?base64?${Buffer.from('get_catalog').toString('base64')}?=`;
      const answer = await same({ ...modern(14, 'get_catalog', {}, {}, { 'mcp-name': encoded }), fastPath: false });
      expect(answer.body['result']).toMatchObject({ resultType: 'complete' });
    });

    it('2025-era: a supported MCP-Protocol-Version is answered here, another one and a Host the SDK refuses by the SDK', async () => {
      await same(legacy(15, 'get_catalog', {}, undefined, { 'mcp-protocol-version': '2025-06-18' }));
      expect((await same({ ...legacy(16, 'get_catalog', {}, undefined, { 'mcp-protocol-version': '1999-01-01' }), fastPath: false })).status).toBe(400);
      expect((await same({ ...legacy(17, 'get_catalog', {}, undefined, { host: 'a b' }), fastPath: false })).status).toBe(400);
      await same({ ...legacy(18, 'get_catalog', {}, undefined, { host: 'localhost:65000' }), fastPath: true });
    });
  });
});
