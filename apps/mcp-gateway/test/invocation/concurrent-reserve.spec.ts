import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MeteringMessages, QueryMessages, ServiceError } from '@adintel/contracts';
import { waitUntil } from '@adintel/testing';
import { TestIssuer } from '../support/test-issuer';
import { fakeMetering, fakeQuery, TRIAL_TOKENS } from '../support/fake-backends';
import { startGateway, TEST_BASE_URL, type Gateway } from '../support/gateway-harness';

/**
 * A paid call sends the query together with the reserve (tool-invoker.service.ts). The fakes' gates
 * order the two answers, so each case below is the interleaving it names, not whichever came first.
 */
describe('a paid call reserves and queries concurrently, and the reservation still decides', () => {
  let issuer: TestIssuer;
  let gateway: Gateway;
  const query = fakeQuery(7);
  const metering = fakeMetering();
  let caller = 0;

  beforeAll(async () => {
    issuer = await TestIssuer.start(TEST_BASE_URL);
    gateway = await startGateway({ jwksUrl: issuer.jwksUrl, query, metering: metering.service });
  });
  afterAll(async () => {
    await gateway.close();
    await issuer.close();
  });
  beforeEach(() => {
    query.failure = undefined;
    query.gate(QueryMessages.searchAds, undefined);
    metering.service.gate(MeteringMessages.reserve, undefined);
    for (const service of [query, metering.service]) {
      service.received.length = 0;
      service.answered.length = 0;
    }
  });

  const queryAnswered = () => waitUntil(() => query.answered.includes(QueryMessages.searchAds.pattern), 2_000, 5);
  const holdsOf = (sub: string) => [...metering.holds.values()].filter((hold) => hold.caller === sub);

  async function get(path: string, sub = `agent-${++caller}`) {
    const res = await fetch(`${gateway.url}/api/v1${path}`, { headers: { authorization: `Bearer ${await issuer.token({ sub })}` } });
    const text = await res.text();
    return { res, sub, body: text ? JSON.parse(text) : undefined };
  }

  async function mcpSearch(sub: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${await issuer.token({ sub })}` } },
    });
    const client = new Client({ name: 'concurrent-reserve-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      return (await client.callTool({ name: 'search_ads', arguments: args })) as CallToolResult;
    } finally {
      await client.close();
    }
  }

  it('sends the query while the reserve is still unanswered, and charges what the result costs', async () => {
    // The reserve answers only once the query has been received: a gateway that waited for it would never send one.
    metering.service.gate(MeteringMessages.reserve, () => waitUntil(() => query.received.length > 0, 2_000, 5));
    const { res, body, sub } = await get('/ads?limit=50');
    expect(res.status).toBe(200);
    expect(body.data).toHaveLength(7);
    expect(res.headers.get('x-tokens-charged')).toBe('7');
    expect(res.headers.get('x-tokens-remaining')).toBe(String(TRIAL_TOKENS - 7));
    expect(metering.balanceOf(sub)).toBe(TRIAL_TOKENS - 7);
  });

  it('REST: a short balance is a 402 even when the query answered first; its result is dropped and nothing is held', async () => {
    const sub = 'short-rest';
    metering.balances.set(sub, 12);
    metering.service.gate(MeteringMessages.reserve, queryAnswered);
    const { res, body } = await get('/ads?limit=50', sub);
    expect(res.status).toBe(402);
    expect(body).toMatchObject({ status: 402, needed: 50, remaining: 12, max_affordable_limit: 12 });
    expect(body.data).toBeUndefined();
    expect(JSON.stringify(body)).not.toContain('ad-1');
    expect(res.headers.get('x-tokens-charged')).toBe('0');
    expect(query.answered).toEqual([QueryMessages.searchAds.pattern]);
    expect(holdsOf(sub)).toEqual([]);
    expect(metering.service.calls(MeteringMessages.settle)).toEqual([]);
    expect(metering.service.calls(MeteringMessages.release)).toEqual([]);
    expect(metering.balanceOf(sub)).toBe(12);
  });

  it('MCP: the same 402 as an error result with no structuredContent and no ads in its text', async () => {
    const sub = 'short-mcp';
    metering.balances.set(sub, 12);
    metering.service.gate(MeteringMessages.reserve, queryAnswered);
    const result = await mcpSearch(sub, { limit: 50 });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(JSON.stringify(result.content)).not.toContain('ad-1');
    expect(result._meta).toMatchObject({ tokens_charged: 0, problem: { status: 402, needed: 50, remaining: 12 } });
    expect(query.answered).toEqual([QueryMessages.searchAds.pattern]);
    expect(holdsOf(sub)).toEqual([]);
    expect(metering.balanceOf(sub)).toBe(12);
  });

  it('a query that fails before the reserve holds: the hold is released once it lands, and the query error is the answer', async () => {
    query.failure = ServiceError.of('unavailable', 'the query service is not running', { retry_after_seconds: 5 });
    metering.service.gate(MeteringMessages.reserve, queryAnswered);
    const { res, sub } = await get('/ads?limit=50');
    expect(res.status).toBe(503);
    expect(res.headers.get('x-tokens-charged')).toBe('0');
    const [reserve] = metering.service.calls(MeteringMessages.reserve);
    expect(metering.service.calls(MeteringMessages.release)).toEqual([{ request_id: reserve?.['request_id'], caller_id: sub }]);
    expect(holdsOf(sub)).toEqual([expect.objectContaining({ reserved: 50, settlement: expect.objectContaining({ charged: 0 }) })]);
    expect(metering.balanceOf(sub)).toBe(TRIAL_TOKENS);
  });

  it('a reserve that fails after the query answered: the failure is the answer, nothing is held, settled or released', async () => {
    metering.service.gate(MeteringMessages.reserve, async () => {
      await queryAnswered();
      throw ServiceError.of('unavailable', 'the metering service is not running', { retry_after_seconds: 5 });
    });
    const { res, body, sub } = await get('/ads?limit=50');
    expect(res.status).toBe(503);
    expect(body.data).toBeUndefined();
    expect(query.answered).toEqual([QueryMessages.searchAds.pattern]);
    expect(holdsOf(sub)).toEqual([]);
    expect(metering.service.calls(MeteringMessages.settle)).toEqual([]);
    expect(metering.service.calls(MeteringMessages.release)).toEqual([]);
    expect(metering.balanceOf(sub)).toBe(TRIAL_TOKENS);
  });

  it('a query that fails after the 402 was answered is no unhandled rejection (jest fails the test on one)', async () => {
    const sub = 'short-late-failure';
    metering.balances.set(sub, 1);
    let answered = false;
    query.gate(QueryMessages.searchAds, async () => {
      await waitUntil(() => answered, 2_000, 5);
      throw ServiceError.of('timeout', 'the query service did not answer within 10000 ms');
    });
    const { res } = await get('/ads?limit=50', sub);
    answered = true;
    expect(res.status).toBe(402);
    await queryAnswered();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(metering.service.calls(MeteringMessages.release)).toEqual([]);
    expect(metering.balanceOf(sub)).toBe(1);
  });
});
