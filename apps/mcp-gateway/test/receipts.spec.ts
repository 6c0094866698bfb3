import { MeteringMessages } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';
import { TestIssuer } from './support/test-issuer';
import { fakeMetering, fakeQuery, TRIAL_TOKENS } from './support/fake-backends';
import { startGateway, TEST_BASE_URL, type Gateway } from './support/gateway-harness';
import { callToolOverMcp } from './support/mcp-client';

/**
 * Receipts against the ledger when metering's answer to a settle is lost: the fake commits the charge
 * and then answers `timeout`, as a transport timeout after a committed settle looks to the gateway.
 */
describe('receipts tell what the ledger charged when settle answers are lost', () => {
  let issuer: TestIssuer;
  let gateway: Gateway;
  const metering = fakeMetering();
  /** How many of the next settle answers are lost after the charge is committed. */
  let lostAnswers = 0;

  beforeAll(async () => {
    metering.service.on(MeteringMessages.settle, ({ request_id, charged }) => {
      const settlement = metering.settle(String(request_id), Number(charged));
      if (lostAnswers > 0) {
        lostAnswers--;
        throw ServiceError.of('timeout', 'the metering service did not answer within 10000 ms');
      }
      return settlement;
    });
    issuer = await TestIssuer.start(TEST_BASE_URL);
    gateway = await startGateway({ jwksUrl: issuer.jwksUrl, query: fakeQuery(6), metering: metering.service, env: { SETTLE_ATTEMPTS: '3' } });
  });
  afterAll(async () => {
    await gateway.close();
    await issuer.close();
  });

  const used = (sub: string) => TRIAL_TOKENS - metering.balanceOf(sub);

  async function rest(sub: string, path: string) {
    const res = await fetch(`${gateway.url}/api/v1${path}`, { headers: { authorization: `Bearer ${await issuer.token({ sub })}` } });
    await res.arrayBuffer();
    return res;
  }

  async function mcpCall(sub: string, args: Record<string, unknown>) {
    return callToolOverMcp(gateway.url, await issuer.token({ sub }), 'search_ads', args);
  }

  it('REST: a settle whose first answer is lost is asked again and the receipt shows the committed charge', async () => {
    lostAnswers = 1;
    const res = await rest('rest-lost-once', '/ads?limit=10');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-tokens-charged')).toBe('6');
    expect(res.headers.get('x-tokens-remaining')).toBe(String(TRIAL_TOKENS - 6));
    expect(used('rest-lost-once')).toBe(6);
  });

  it('MCP: the same, in _meta', async () => {
    lostAnswers = 2;
    const result = await mcpCall('mcp-lost-twice', { limit: 10 });
    expect(result._meta).toMatchObject({ tokens_charged: 6, tokens_remaining: TRIAL_TOKENS - 6 });
    expect(used('mcp-lost-twice')).toBe(6);
  });

  it('REST: when no settle answer comes back the receipt says pending with the charge and the ledger request id, never 0', async () => {
    lostAnswers = 3;
    const res = await rest('rest-lost-all', '/ads?limit=10');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-tokens-charged')).toBe('pending');
    expect(res.headers.get('x-tokens-pending')).toBe('6');
    const usageRequestId = res.headers.get('x-usage-request-id');
    expect(usageRequestId?.startsWith(res.headers.get('x-request-id') ?? '-')).toBe(true);
    // The ledger has it under that id, at the amount the receipt names.
    expect(metering.holds.get(usageRequestId ?? '')?.settlement).toMatchObject({ charged: 6 });
    expect(used('rest-lost-all')).toBe(6);
  });

  it('MCP: the pending receipt carries the same fields in _meta', async () => {
    lostAnswers = 3;
    const result = await mcpCall('mcp-lost-all', { limit: 10 });
    expect(result.isError).toBeFalsy();
    expect(result._meta).toMatchObject({ tokens_charged: 'pending', tokens_pending: 6, usage_request_id: expect.any(String) });
    expect(metering.holds.get(String(result._meta?.['usage_request_id']))?.settlement).toMatchObject({ charged: 6 });
  });
});
