import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { QueryMessages } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';
import { TestIssuer } from './support/test-issuer';
import { fakeMetering, fakeQuery, TRIAL_TOKENS } from './support/fake-backends';
import { startGateway, TEST_BASE_URL, type Gateway } from './support/gateway-harness';

/** Ledger = usage = receipts, whatever ids and keys a caller reuses, on both surfaces. */
describe('idempotency the caller controls: X-Request-Id traces, Idempotency-Key replays', () => {
  let issuer: TestIssuer;
  let gateway: Gateway;
  const query = fakeQuery(6);
  const metering = fakeMetering();

  beforeAll(async () => {
    issuer = await TestIssuer.start(TEST_BASE_URL);
    gateway = await startGateway({ jwksUrl: issuer.jwksUrl, query, metering: metering.service, env: { RATE_LIMIT_BURST: '100' } });
  });
  afterAll(async () => {
    await gateway.close();
    await issuer.close();
  });

  const used = (sub: string) => TRIAL_TOKENS - metering.balanceOf(sub);
  const searches = () => query.calls(QueryMessages.searchAds).length;

  async function rest(sub: string, headers: Record<string, string>, path = '/ads?limit=10') {
    const res = await fetch(`${gateway.url}/api/v1${path}`, { headers: { authorization: `Bearer ${await issuer.token({ sub })}`, ...headers } });
    const body = (await res.json()) as { data?: unknown[]; code?: string };
    return { status: res.status, body, charged: res.headers.get('x-tokens-charged'), replay: res.headers.get('idempotent-replay') };
  }

  async function mcp(sub: string, headers: Record<string, string>, args: Record<string, unknown>, meta?: Record<string, unknown>) {
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${await issuer.token({ sub })}`, ...headers } },
    });
    const client = new Client({ name: 'idempotency-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      return (await client.callTool({ name: 'search_ads', arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;
    } finally {
      await client.close();
    }
  }

  it('reusing X-Request-Id runs and charges every call, and every receipt says so (5 REST + 3 MCP)', async () => {
    const sub = 'request-id-reuser';
    const headers = { 'x-request-id': `reused-${randomUUID()}` };
    const before = searches();
    const receipts: number[] = [];
    for (let i = 0; i < 5; i++) receipts.push(Number((await rest(sub, headers)).charged));
    for (let i = 0; i < 3; i++) receipts.push(Number((await mcp(sub, headers, { limit: 10 }))._meta?.['tokens_charged']));
    expect(receipts).toEqual(Array(8).fill(6));
    expect(used(sub)).toBe(48);
    expect(searches() - before).toBe(8);
  });

  it('a repeat with the same Idempotency-Key is a replay of the stored answer, charged 0, on REST and MCP alike', async () => {
    const sub = 'key-reuser';
    const key = randomUUID();
    const before = searches();
    const first = await rest(sub, { 'idempotency-key': key });
    expect(first).toMatchObject({ status: 200, charged: '6', replay: null });

    const again = await rest(sub, { 'idempotency-key': key, 'x-request-id': `other-${randomUUID()}` });
    expect(again).toMatchObject({ status: 200, charged: '0', replay: 'true' });
    expect(again.body).toEqual(first.body);

    const viaHeader = await mcp(sub, { 'idempotency-key': key }, { limit: 10 });
    const viaMeta = await mcp(sub, {}, { limit: 10 }, { idempotency_key: key });
    for (const result of [viaHeader, viaMeta]) {
      expect(result._meta).toMatchObject({ tokens_charged: 0, idempotent_replay: true });
      expect(result.structuredContent).toEqual(first.body);
    }
    expect(used(sub)).toBe(6);
    expect(searches() - before).toBe(1);
  });

  it('refuses a key reused for other arguments with 409, and keeps keys apart per caller', async () => {
    const key = randomUUID();
    expect((await rest('key-owner', { 'idempotency-key': key })).charged).toBe('6');
    const other = await rest('key-owner', { 'idempotency-key': key }, '/ads?limit=5');
    expect(other).toMatchObject({ status: 409, charged: '0', body: { code: 'conflict' } });
    const mcpOther = await mcp('key-owner', {}, { limit: 5 }, { idempotency_key: key });
    expect(mcpOther.isError).toBe(true);
    expect(mcpOther._meta).toMatchObject({ tokens_charged: 0, problem: { status: 409 } });
    // Another agent's identical key is its own: it runs and is charged.
    expect((await rest('key-stranger', { 'idempotency-key': key })).charged).toBe('6');
    expect(used('key-owner')).toBe(6);
    expect(used('key-stranger')).toBe(6);
  });

  it('keeps nothing of a failed call: the same key runs again once the service is back', async () => {
    const sub = 'key-after-failure';
    const key = randomUUID();
    query.failure = ServiceError.of('unavailable', 'query is down', { retry_after_seconds: 1 });
    try {
      expect(await rest(sub, { 'idempotency-key': key })).toMatchObject({ status: 503, charged: '0' });
    } finally {
      query.failure = undefined;
    }
    expect(await rest(sub, { 'idempotency-key': key })).toMatchObject({ status: 200, charged: '6', replay: null });
    expect(used(sub)).toBe(6);
  });

  it('names a malformed key: 400 on REST, -32602 on MCP', async () => {
    const long = 'k'.repeat(300);
    const res = await rest('bad-key', { 'idempotency-key': long });
    expect(res).toMatchObject({ status: 400, body: { code: 'invalid_argument', errors: [{ field: 'Idempotency-Key' }] } });
    const error = await mcp('bad-key', {}, { limit: 5 }, { idempotency_key: 42 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -32602, message: expect.stringContaining('params._meta.idempotency_key') });
    expect(used('bad-key')).toBe(0);
  });
});
