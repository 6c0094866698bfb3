import { MeteringMessages, QueryMessages } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';
import { TestIssuer } from '../support/test-issuer';
import { fakeMetering, fakeQuery, TRIAL_TOKENS } from '../support/fake-backends';
import { startGateway, TEST_BASE_URL, type Gateway } from '../support/gateway-harness';

describe('REST twins under /api/v1', () => {
  let issuer: TestIssuer;
  let gateway: Gateway;
  const query = fakeQuery(7);
  const metering = fakeMetering();
  let caller = 0;

  beforeAll(async () => {
    issuer = await TestIssuer.start(TEST_BASE_URL);
    // A bucket of 3 refilled one token every 10 s: the default refill (2 a second) gave one back between the rate-limit
    // test's four calls when a busy machine took over half a second for them (CI saw 200 for the fourth).
    gateway = await startGateway({ jwksUrl: issuer.jwksUrl, query, metering: metering.service, env: { RATE_LIMIT_BURST: '3', RATE_LIMIT_PER_MINUTE: '6' } });
  });
  afterAll(async () => {
    await gateway.close();
    await issuer.close();
  });
  beforeEach(() => {
    query.failure = undefined;
    query.received.length = 0;
    metering.service.received.length = 0;
  });

  /** A fresh agent per test keeps balances and rate limits independent. */
  async function get(path: string, init: { sub?: string; headers?: Record<string, string>; method?: string } = {}) {
    const sub = init.sub ?? `agent-${++caller}`;
    const res = await fetch(`${gateway.url}/api/v1${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${await issuer.token({ sub })}`, ...init.headers },
    });
    const text = await res.text();
    return { res, sub, body: text ? JSON.parse(text) : undefined };
  }

  it('answers GET /ads with the AdsPage, charging 1 token per ad returned', async () => {
    const { res, body, sub } = await get('/ads?country=us');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(body.data).toHaveLength(7);
    expect(res.headers.get('x-tokens-charged')).toBe('7');
    expect(res.headers.get('x-tokens-remaining')).toBe(String(TRIAL_TOKENS - 7));
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(query.calls(QueryMessages.searchAds)).toEqual([expect.objectContaining({ country: 'US', limit: 50, sort_by: 'date', sort_order: 'desc' })]);
    expect(metering.service.calls(MeteringMessages.reserve)).toEqual([expect.objectContaining({ caller_id: sub, tool: 'search_ads', amount: 50 })]);
    expect(metering.balanceOf(sub)).toBe(TRIAL_TOKENS - 7);
  });

  it('accepts array parameters repeated or comma-separated', async () => {
    await get('/ads?platforms=facebook&platforms=tiktok&creative_categories=finance_and_banking,gambling_and_betting');
    await get('/ads?platforms=facebook,tiktok&creative_categories=finance_and_banking&creative_categories=gambling_and_betting');
    const [a, b] = query.calls(QueryMessages.searchAds);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ platforms: ['facebook', 'tiktok'], creative_categories: ['finance_and_banking', 'gambling_and_betting'] });
  });

  it('routes /ads/count to the free count, not to one ad, and charges nothing', async () => {
    const { res, body } = await get('/ads/count?q=shoes');
    expect(res.status).toBe(200);
    expect(body).toEqual({ total: 7, total_estimated: false, cost_of_next_page: 7 });
    expect(res.headers.get('x-tokens-charged')).toBe('0');
    expect(metering.service.received).toEqual([]);
  });

  it('takes the trends dimension advertisers/cards literally or %2F-encoded', async () => {
    for (const path of ['/analytics/trends/advertisers/cards', '/analytics/trends/advertisers%2Fcards']) {
      const { res, body } = await get(`${path}?limit=5`);
      expect(res.status).toBe(200);
      expect(body.dimension).toBe('advertisers/cards');
    }
  });

  it('answers bad arguments with problem+json naming each field, before charging anything', async () => {
    const { res, body } = await get('/ads?limit=500&contry=US&sort_by=clicks');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(body).toMatchObject({ status: 400, title: expect.any(String), type: expect.stringContaining('#problem-invalid_argument') });
    const fields = (body.errors as { field: string; allowed?: string[] }[]).map((e) => e.field).sort();
    expect(fields).toEqual(['contry', 'limit', 'sort_by']);
    expect(body.errors.find((e: { field: string }) => e.field === 'sort_by').allowed).toContain('most_popular');
    const dimension = await get('/analytics/trends/brands');
    expect(dimension.res.status).toBe(400);
    expect(dimension.body.errors[0]).toMatchObject({ field: 'dimension', allowed: expect.arrayContaining(['advertisers/cards']) });
    expect(metering.service.received).toEqual([]);
  });

  it('answers an unknown path with a 404 problem, even without a token, and other methods with 405', async () => {
    const res = await fetch(`${gateway.url}/api/v1/nothing/here`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const post = await get('/ads', { method: 'POST' });
    expect(post.res.status).toBe(405);
    expect(post.res.headers.get('allow')).toBe('GET');
  });

  it('passes a not_found through as 404 and releases the reservation', async () => {
    const { res, body, sub } = await get('/ads/ad-404');
    expect(res.status).toBe(404);
    expect(body.detail).toContain('ad-404');
    expect(res.headers.get('x-tokens-charged')).toBe('0');
    expect(metering.service.calls(MeteringMessages.release)).toHaveLength(1);
    expect(metering.balanceOf(sub)).toBe(TRIAL_TOKENS);
  });

  it('answers a short balance with an actionable 402', async () => {
    metering.balances.set('poor-agent', 12);
    const { res, body } = await get('/ads?limit=50', { sub: 'poor-agent' });
    expect(res.status).toBe(402);
    expect(body).toMatchObject({ status: 402, needed: 50, remaining: 12, max_affordable_limit: 12 });
    expect(body.detail).toContain('limit=12');
    expect((await get('/ads?limit=12', { sub: 'poor-agent' })).res.status).toBe(200);
  });

  it('maps a service that is down to 503 + Retry-After and a slow one to 504, charging nothing', async () => {
    query.failure = ServiceError.of('unavailable', 'the query service is not running', { retry_after_seconds: 5 });
    const down = await get('/ads');
    expect(down.res.status).toBe(503);
    expect(down.res.headers.get('retry-after')).toBe('5');
    expect(metering.balanceOf(down.sub)).toBe(TRIAL_TOKENS);
    query.failure = ServiceError.of('timeout', 'the query service did not answer within 10000 ms');
    const slow = await get('/ads');
    expect(slow.res.status).toBe(504);
    expect(metering.balanceOf(slow.sub)).toBe(TRIAL_TOKENS);
  });

  it('hides an unexpected upstream failure behind a 500 problem without details', async () => {
    query.failure = ServiceError.of('internal', 'SQLITE_CORRUPT at /var/data');
    const { res, body } = await get('/ads');
    expect(res.status).toBe(500);
    expect(JSON.stringify(body)).not.toContain('SQLITE');
  });

  it('runs and charges a repeat with the same X-Request-Id (a trace id), and replays one with the same Idempotency-Key', async () => {
    const headers = { 'x-request-id': 'retry-me-1' };
    const first = await get('/ads?limit=5', { sub: 'retrier', headers });
    const second = await get('/ads?limit=5', { sub: 'retrier', headers });
    expect([first.res.headers.get('x-tokens-charged'), second.res.headers.get('x-tokens-charged')]).toEqual(['5', '5']);
    expect(metering.balanceOf('retrier')).toBe(TRIAL_TOKENS - 10);
    const keyed = await get('/ads?limit=5', { sub: 'keyed-retrier', headers: { 'idempotency-key': 'retry-me-1' } });
    const replay = await get('/ads?limit=5', { sub: 'keyed-retrier', headers: { 'idempotency-key': 'retry-me-1' } });
    expect([keyed.res.headers.get('x-tokens-charged'), replay.res.headers.get('x-tokens-charged')]).toEqual(['5', '0']);
    expect(metering.balanceOf('keyed-retrier')).toBe(TRIAL_TOKENS - 5);
  });

  it('rate-limits paid calls per account with 429 + Retry-After, while get_usage stays free', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await get('/ads?limit=1', { sub: 'busy-agent' })).res.status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await get('/ads?limit=1', { sub: 'busy-agent' });
    expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body).toMatchObject({ status: 429, retry_after: expect.any(Number) });
    for (let i = 0; i < 5; i++) {
      const usage = await get('/usage', { sub: 'busy-agent' });
      expect(usage.res.status).toBe(200);
      expect(usage.res.headers.get('x-tokens-remaining')).toBe(String(usage.body.remaining));
    }
    expect((await get('/ads?limit=1', { sub: 'other-agent' })).res.status).toBe(200);
  });

  it('sends the caller id, never the token, to metering tools', async () => {
    await get('/usage', { sub: 'who-am-i' });
    expect(metering.service.calls(MeteringMessages.getUsage)).toEqual([{ caller_id: 'who-am-i' }]);
    expect(JSON.stringify(metering.service.received)).not.toMatch(/eyJ/);
  });
});
