import { randomUUID } from 'node:crypto';
import { register } from 'prom-client';
import { dropPrefix, FakeClock, startMetering, testConfig, type Metering } from './support/metering-harness';

/** adintel_tokens_charged_total{tool, plan} right now. */
async function tokensCharged(tool: string, plan: string): Promise<number> {
  const metric = await register.getSingleMetric('adintel_tokens_charged_total')?.get();
  return metric?.values.find((v) => v.labels['tool'] === tool && v.labels['plan'] === plan)?.value ?? 0;
}

describe('tokens charged metric', () => {
  const config = testConfig();
  let metering: Metering;

  beforeAll(async () => {
    metering = await startMetering(config, new FakeClock());
  });
  afterAll(async () => {
    await metering.close();
    await dropPrefix(config.REDIS_KEY_PREFIX);
  });

  it('counts the tokens of a settled call once by tool and plan, not again on a duplicate settle, not for a release', async () => {
    const agent = `agent-${randomUUID()}`;
    const before = await tokensCharged('search_ads', 'trial');
    await metering.reservations.reserve({ request_id: `${agent}-1`, caller_id: agent, tool: 'search_ads', amount: 20 });
    await metering.reservations.settle(`${agent}-1`, agent, 7);
    await metering.reservations.settle(`${agent}-1`, agent, 7); // a redelivered settle answers the same and charges nothing
    await metering.reservations.reserve({ request_id: `${agent}-2`, caller_id: agent, tool: 'search_ads', amount: 5 });
    await metering.reservations.release(`${agent}-2`, agent);
    expect((await tokensCharged('search_ads', 'trial')) - before).toBe(7);
  });
});
