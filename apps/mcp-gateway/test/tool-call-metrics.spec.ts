import { register } from 'prom-client';
import { TestIssuer } from './support/test-issuer';
import { fakeMetering, fakeQuery } from './support/fake-backends';
import { startGateway, TEST_BASE_URL, type Gateway } from './support/gateway-harness';

/** adintel_tool_calls_total{tool, status} right now. */
async function toolCalls(tool: string, status: number): Promise<number> {
  const metric = await register.getSingleMetric('adintel_tool_calls_total')?.get();
  return metric?.values.find((v) => v.labels['tool'] === tool && v.labels['status'] === String(status))?.value ?? 0;
}

describe('tool call metrics at the gateway', () => {
  let issuer: TestIssuer;
  let gateway: Gateway;
  const metering = fakeMetering();

  beforeAll(async () => {
    issuer = await TestIssuer.start(TEST_BASE_URL);
    gateway = await startGateway({ jwksUrl: issuer.jwksUrl, query: fakeQuery(3), metering: metering.service, env: { RATE_LIMIT_BURST: '2' } });
  });
  afterAll(async () => {
    await gateway.close();
    await issuer.close();
  });

  const call = async (sub: string, path: string) =>
    (await fetch(`${gateway.url}/api/v1${path}`, { headers: { authorization: `Bearer ${await issuer.token({ sub })}` } })).status;

  it('counts calls by tool and the status they end with: 200, 402 (short balance) and 429 (rate limited)', async () => {
    const before = { ok: await toolCalls('search_ads', 200), short: await toolCalls('search_ads', 402), limited: await toolCalls('search_ads', 429) };
    metering.balances.set('poor-agent', 1);
    expect(await call('poor-agent', '/ads?limit=50')).toBe(402);
    expect([await call('busy-agent', '/ads'), await call('busy-agent', '/ads'), await call('busy-agent', '/ads')]).toEqual([200, 200, 429]);
    expect((await toolCalls('search_ads', 200)) - before.ok).toBe(2);
    expect((await toolCalls('search_ads', 402)) - before.short).toBe(1);
    expect((await toolCalls('search_ads', 429)) - before.limited).toBe(1);
  });
});
