import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { MeteringMessages, QueryMessages } from '@adintel/contracts';
import { TestIssuer } from './support/test-issuer';
import { fakeMetering, fakeQuery } from './support/fake-backends';
import { startGateway, TEST_BASE_URL, type Gateway } from './support/gateway-harness';

interface JsonRpcAnswer {
  readonly id?: unknown;
  readonly error: { readonly code: number; readonly message: string };
}

/** What no answer may ever show a caller: validator dumps and parser internals. */
const LEAKS = /invalid_type|"code":"|ZodError|Unexpected token|SyntaxError|at .*\.(js|ts):\d+/;

describe('MCP JSON-RPC envelopes: batches, bad envelopes and bad params', () => {
  let issuer: TestIssuer;
  let gateway: Gateway;
  const metering = fakeMetering();
  const query = fakeQuery(7);
  let token: string;

  beforeAll(async () => {
    issuer = await TestIssuer.start(TEST_BASE_URL);
    gateway = await startGateway({ jwksUrl: issuer.jwksUrl, query, metering: metering.service });
    token = await issuer.token({ sub: 'envelope-agent' });
  });
  afterAll(async () => {
    await gateway.close();
    await issuer.close();
  });

  async function post(body: string, accept = 'application/json, text/event-stream') {
    const res = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept },
      body,
    });
    const text = await res.text();
    const json = res.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as JsonRpcAnswer) : undefined;
    return { status: res.status, text, json };
  }

  const call = (id: number, args: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search_ads', arguments: args } });

  it('refuses a batch whole with -32600, running and charging none of it', async () => {
    const reservesBefore = metering.service.calls(MeteringMessages.reserve).length;
    const searchesBefore = query.calls(QueryMessages.searchAds).length;
    const res = await post(JSON.stringify([call(1, { limit: 4 }), call(1, { limit: 7 })]));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest } });
    expect(res.json?.error.message).toMatch(/batch/i);
    expect(metering.service.calls(MeteringMessages.reserve)).toHaveLength(reservesBefore);
    expect(query.calls(QueryMessages.searchAds)).toHaveLength(searchesBefore);
  });

  it('answers an empty batch with -32600, not 202', async () => {
    const res = await post('[]');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ id: null, error: { code: ErrorCode.InvalidRequest } });
  });

  it.each([
    ['a string', '"hello"'],
    ['a number', '42'],
    ['null', 'null'],
    ['no jsonrpc member', JSON.stringify({ id: 1, method: 'tools/list' })],
    ['jsonrpc 1.0', JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'tools/list' })],
    ['a numeric method', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 5 })],
    ['an object id', JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' })],
  ])('answers a bad envelope (%s) with -32600 naming what is wrong', async (_case, body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', error: { code: ErrorCode.InvalidRequest } });
    expect(res.text).not.toMatch(LEAKS);
  });

  it('answers a body that is not JSON with -32700 without the parser message', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.ParseError } });
    expect(res.text).not.toMatch(LEAKS);
  });

  it.each([
    ['an array', [1, 2]],
    ['null', null],
    ['a string', 'limit=5'],
    ['a number', 5],
  ])('answers arguments that are %s with -32602 naming params.arguments', async (_case, args) => {
    const res = await post(JSON.stringify(call(9, args)));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: ErrorCode.InvalidParams } });
    expect(res.json?.error.message).toContain('params.arguments');
    expect(res.text).not.toMatch(LEAKS);
  });

  it.each([
    ['no params.name', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { arguments: {} } }, 'params.name'],
    ['a numeric params.name', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 7 } }, 'params.name'],
    ['no params', { jsonrpc: '2.0', id: 3, method: 'tools/call' }, 'params'],
    ['params as an array', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: ['search_ads'] }, 'params'],
    ['params._meta as a string', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_catalog', _meta: 'x' } }, 'params._meta'],
  ])('answers %s with -32602 naming the field', async (_case, body, field) => {
    const res = await post(JSON.stringify(body));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: 3, error: { code: ErrorCode.InvalidParams } });
    expect(res.json?.error.message).toContain(field);
    expect(res.text).not.toMatch(LEAKS);
  });

  it('answers bad params in the stream to a client that only accepts text/event-stream', async () => {
    const res = await post(JSON.stringify(call(4, [1])), 'text/event-stream');
    expect(res.status).toBe(200);
    const event = res.text.split('\n').find((line) => line.startsWith('data: '));
    expect(JSON.parse(event?.slice(6) ?? '{}')).toMatchObject({ id: 4, error: { code: ErrorCode.InvalidParams } });
  });

  it('gives the SDK client an McpError -32602 for arguments that are not an object', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'envelope-test', version: '1.0.0' });
    await client.connect(transport);
    const error = await client.callTool({ name: 'search_ads', arguments: [1, 2] as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    await client.close();
  });
});
