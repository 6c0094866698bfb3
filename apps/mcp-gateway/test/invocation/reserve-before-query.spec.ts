import { MeteringMessages, QueryMessages, ServiceError } from '@adintel/contracts';
import { TestIssuer } from '../support/test-issuer';
import { fakeMetering, fakeQuery, TRIAL_TOKENS } from '../support/fake-backends';
import { startGateway, TEST_BASE_URL, type Gateway } from '../support/gateway-harness';
import { callToolOverMcp } from '../support/mcp-client';

/**
 * A paid call reserves its worst case before the query runs (product-decisions.md; tool-invoker.service.ts).
 * The fakes' gates hold an answer back, so each case shows what was sent while the other side waited.
 */
describe('a paid call holds its worst case before its query is sent', () => {
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
    for (const service of [query, metering.service]) service.received.length = 0;
  });

  const holdsOf = (sub: string) => [...metering.holds.values()].filter((hold) => hold.caller === sub);

  async function get(path: string, sub = `agent-${++caller}`) {
    const res = await fetch(`${gateway.url}/api/v1${path}`, { headers: { authorization: `Bearer ${await issuer.token({ sub })}` } });
    const text = await res.text();
    return { res, sub, body: text ? JSON.parse(text) : undefined };
  }

  async function mcpSearch(sub: string, args: Record<string, unknown>) {
    return callToolOverMcp(gateway.url, await issuer.token({ sub }), 'search_ads', args);
  }

  it('sends the query only once the reserve has answered, and charges what the result costs', async () => {
    let reserveAnswered = false;
    // While the reserve is held back, no query may be sent.
    metering.service.gate(MeteringMessages.reserve, async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(query.received).toEqual([]);
      reserveAnswered = true;
    });
    query.gate(QueryMessages.searchAds, async () => expect(reserveAnswered).toBe(true));
    const { res, body, sub } = await get('/ads?limit=50');
    expect(res.status).toBe(200);
    expect(body.data).toHaveLength(7);
    expect(res.headers.get('x-tokens-charged')).toBe('7');
    expect(res.headers.get('x-tokens-remaining')).toBe(String(TRIAL_TOKENS - 7));
    expect(metering.balanceOf(sub)).toBe(TRIAL_TOKENS - 7);
  });

  it('REST: a short balance is a 402 and the query is never sent; nothing is held', async () => {
    const sub = 'short-rest';
    metering.balances.set(sub, 12);
    const { res, body } = await get('/ads?limit=50', sub);
    expect(res.status).toBe(402);
    expect(body).toMatchObject({ status: 402, needed: 50, remaining: 12, max_affordable_limit: 12 });
    expect(res.headers.get('x-tokens-charged')).toBe('0');
    expect(query.received).toEqual([]);
    expect(holdsOf(sub)).toEqual([]);
    expect(metering.service.calls(MeteringMessages.settle)).toEqual([]);
    expect(metering.service.calls(MeteringMessages.release)).toEqual([]);
    expect(metering.balanceOf(sub)).toBe(12);
  });

  it('MCP: the same 402 as an error result, and no query sent', async () => {
    const sub = 'short-mcp';
    metering.balances.set(sub, 12);
    const result = await mcpSearch(sub, { limit: 50 });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result._meta).toMatchObject({ tokens_charged: 0, problem: { status: 402, needed: 50, remaining: 12 } });
    expect(query.received).toEqual([]);
    expect(holdsOf(sub)).toEqual([]);
    expect(metering.balanceOf(sub)).toBe(12);
  });

  it('a reserve that fails is the answer: no query sent, nothing held, settled or released', async () => {
    metering.service.gate(MeteringMessages.reserve, async () => {
      throw ServiceError.of('unavailable', 'the metering service is not running', { retry_after_seconds: 5 });
    });
    const { res, body, sub } = await get('/ads?limit=50');
    expect(res.status).toBe(503);
    expect(body.data).toBeUndefined();
    expect(query.received).toEqual([]);
    expect(holdsOf(sub)).toEqual([]);
    expect(metering.service.calls(MeteringMessages.settle)).toEqual([]);
    expect(metering.service.calls(MeteringMessages.release)).toEqual([]);
    expect(metering.balanceOf(sub)).toBe(TRIAL_TOKENS);
  });

  it('a query that fails after the hold: the hold is released and the query error is the answer', async () => {
    query.failure = ServiceError.of('unavailable', 'the query service is not running', { retry_after_seconds: 5 });
    const { res, sub } = await get('/ads?limit=50');
    expect(res.status).toBe(503);
    expect(res.headers.get('x-tokens-charged')).toBe('0');
    const [reserve] = metering.service.calls(MeteringMessages.reserve);
    expect(metering.service.calls(MeteringMessages.release)).toEqual([{ request_id: reserve?.['request_id'], caller_id: sub }]);
    expect(holdsOf(sub)).toEqual([expect.objectContaining({ reserved: 50, settlement: expect.objectContaining({ charged: 0 }) })]);
    expect(metering.balanceOf(sub)).toBe(TRIAL_TOKENS);
  });
});
