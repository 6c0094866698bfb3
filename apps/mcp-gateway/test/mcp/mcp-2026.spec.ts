import { request } from 'node:http';
import { Client, ProtocolError, ProtocolErrorCode, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { MeteringMessages } from '@adintel/contracts';
import { TOOLS } from '@adintel/tool-catalogue';
import { TestIssuer } from '../support/test-issuer';
import { fakeMetering, fakeQuery, TRIAL_TOKENS } from '../support/fake-backends';
import { startGateway, TEST_BASE_URL, type Gateway } from '../support/gateway-harness';

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe('MCP at /mcp on the 2026-07-28 revision (the v2 SDK client, and raw requests)', () => {
  let issuer: TestIssuer;
  let gateway: Gateway;
  const metering = fakeMetering();

  beforeAll(async () => {
    issuer = await TestIssuer.start(TEST_BASE_URL);
    gateway = await startGateway({ jwksUrl: issuer.jwksUrl, query: fakeQuery(7), metering: metering.service });
  });
  afterAll(async () => {
    await gateway.close();
    await issuer.close();
  });

  async function connect(sub: string): Promise<Client> {
    const token = await issuer.token({ sub });
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'gateway-test-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(transport);
    return client;
  }

  /** A 2026-07-28 request as the spec writes it: the `_meta` envelope and the standard headers. */
  async function rpc(method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}, id: number | string = 1) {
    const name = typeof params['name'] === 'string' ? params['name'] : typeof params['uri'] === 'string' ? params['uri'] : undefined;
    const res = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await issuer.token({ sub: 'raw-2026' })}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': method,
        ...(name !== undefined && { 'mcp-name': name }),
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...ENVELOPE, ...(params['_meta'] as object) } } }),
    });
    const text = await res.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON-RPC answer, read field by field below
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as Record<string, any> };
  }

  it('negotiates 2026-07-28 (server/discover, no initialize) and lists the 20 catalogue tools with output schemas', async () => {
    const client = await connect('lister-2026');
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client.getServerVersion()).toMatchObject({ name: 'ad-intel', version: '1.0.0' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    for (const tool of tools) {
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, title: tool.title });
    }
    await client.close();
  });

  it('calls a paid tool with the receipt in _meta, and a bad argument and a short balance are isError problems', async () => {
    const client = await connect('caller-2026');
    const result = (await client.callTool({ name: 'search_ads', arguments: { country: 'us', limit: 3 } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { data: unknown[] }).data).toHaveLength(3);
    expect(result._meta).toMatchObject({ tokens_charged: 3, tokens_remaining: TRIAL_TOKENS - 3, request_id: expect.any(String) });
    expect(metering.service.calls(MeteringMessages.reserve).at(-1)).toMatchObject({ caller_id: 'caller-2026', amount: 3 });

    const bad = (await client.callTool({ name: 'search_ads', arguments: { limit: 1000 } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(bad._meta).toMatchObject({ tokens_charged: 0, problem: { status: 400, errors: [expect.objectContaining({ field: 'limit' })] } });

    metering.balances.set('caller-2026', 4);
    const short = (await client.callTool({ name: 'search_ads', arguments: { limit: 20 } })) as CallToolResult;
    expect(short.isError).toBe(true);
    expect(JSON.parse((short.content[0] as { text: string }).text)).toMatchObject({ status: 402, needed: 20, remaining: 4, max_affordable_limit: 4 });

    const unknown = await client.callTool({ name: 'drop_tables', arguments: {} }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(ProtocolError);
    expect((unknown as ProtocolError).code).toBe(ProtocolErrorCode.InvalidParams);
    await client.close();
  });

  // The SDK lists the modern revisions here: a 2025-era client never sends server/discover, it sends initialize.
  it('answers server/discover with the revision, capabilities and the server identity, cacheable', async () => {
    const { status, body } = await rpc('server/discover');
    expect(status).toBe(200);
    expect(body['result']).toMatchObject({
      resultType: 'complete',
      supportedVersions: [MODERN],
      capabilities: { tools: {}, resources: {} },
      ttlMs: 3_600_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'ad-intel', version: '1.0.0' } },
    });
  });

  it('marks results with resultType and gives tools/list and resources/read cache hints; tool calls stay uncached', async () => {
    const list = await rpc('tools/list');
    expect(list.body['result']).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public' });
    expect(list.body['result'].tools).toHaveLength(20);
    const view = await rpc('resources/read', { uri: 'ui://ad-intel/ad-gallery.html' });
    expect(view.body['result']).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public' });
    const call = await rpc('tools/call', { name: 'get_catalog', arguments: {} });
    expect(call.body['result']).toMatchObject({ resultType: 'complete', structuredContent: { interface_version: '1.0.0' } });
    expect(call.body['result']).not.toHaveProperty('ttlMs');
  });

  it('refuses standard headers that disagree with the body, or are missing, with 400 and -32020', async () => {
    for (const headers of [{ 'mcp-method': 'tools/list' }, { 'mcp-name': 'search_ads' }] as Record<string, string>[]) {
      const res = await rpc('tools/call', { name: 'get_catalog', arguments: {} }, headers);
      expect(res.status).toBe(400);
      expect(res.body['error'].code).toBe(-32020);
    }
    const res = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await issuer.token({ sub: 'raw-2026' })}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32020);
  });

  it('answers a method the revision removed with 404 and -32601, and bad params of a served method with -32602 naming the field', async () => {
    for (const method of ['ping', 'initialize', 'logging/setLevel']) {
      const res = await rpc(method);
      expect([method, res.status, res.body['error'].code]).toEqual([method, 404, -32601]);
    }
    const bad = await rpc('tools/call', { name: 'get_catalog', arguments: [] });
    expect(bad.body['error']).toMatchObject({ code: -32602, message: expect.stringContaining('params.arguments') });
  });

  it('answers an unsupported revision with -32022 and the versions it supports', async () => {
    const res = await rpc('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }, { 'mcp-protocol-version': '2099-01-01' });
    expect(res.status).toBe(400);
    expect(res.body['error']).toMatchObject({ code: -32022, data: { supported: [MODERN], requested: '2099-01-01' } });
  });

  it('answers whatever the Host header says on both revisions, never with a 5xx', async () => {
    const token = await issuer.token({ sub: 'raw-2026' });
    const { hostname, port } = new URL(gateway.url);
    const post = (host: string, modern: boolean) =>
      new Promise<number>((resolve, reject) => {
        const headers = {
          host,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(modern && { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' }),
        };
        const call = request({ host: hostname, port, path: '/mcp', method: 'POST', headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        call.on('error', reject);
        call.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: modern ? { _meta: ENVELOPE } : {} }));
      });
    for (const host of ['a b', 'x:99999', '[::1']) {
      expect([host, await post(host, true)]).toEqual([host, 200]);
      // 2025-era: the SDK's Node transport refuses such a Host with a 400.
      expect([host, await post(host, false)]).toEqual([host, 400]);
    }
  });

  it('keeps the gateway checks on this era too: idempotency key, Origin, bearer token', async () => {
    const key = `idem-${Date.now()}`;
    const first = await rpc('tools/call', { name: 'search_ads', arguments: { limit: 2 }, _meta: { idempotency_key: key } });
    const again = await rpc('tools/call', { name: 'search_ads', arguments: { limit: 2 } }, { 'idempotency-key': key });
    expect(first.body['result']._meta).toMatchObject({ tokens_charged: 2 });
    expect(again.body['result'].structuredContent).toEqual(first.body['result'].structuredContent);
    expect(again.body['result']._meta).toMatchObject({ tokens_charged: 0, idempotent_replay: true });

    const badKey = await rpc('tools/call', { name: 'search_ads', arguments: {} }, { 'idempotency-key': 'x'.repeat(300) });
    expect(badKey.body['error']).toMatchObject({ code: -32602, message: expect.stringContaining('Idempotency-Key') });

    const foreign = await rpc('tools/list', {}, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const anonymous = await rpc('tools/list', {}, { authorization: '' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('resource_metadata=');
  });
});
