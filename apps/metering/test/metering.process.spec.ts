import { randomUUID } from 'node:crypto';
import { MeteringMessages, type ServiceError } from '@adintel/contracts';
import { startApp, startPrivateRedis, waitUntil, type AppProcess, type PrivateRedis } from '@adintel/testing';
import { ServiceClient } from '@adintel/transport';

jest.setTimeout(60_000);

/** The built app (dist/apps/metering/main.js) as a real process, spoken to over the real transport. */
describe('metering as a process, over the transport', () => {
  let redis: PrivateRedis;
  let app: AppProcess;
  let client: ServiceClient;
  let env: Record<string, string>;

  const start = () => startApp({ name: 'metering', env, readyPath: '/readyz' });

  beforeAll(async () => {
    redis = await startPrivateRedis();
    env = {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: `metering-process:${randomUUID()}:`,
      // Longer than a restart takes on a loaded machine: a settle arriving after it finds the reservation swept
      // (charged 0; CI at load 30 saw that with 6 s).
      RESERVATION_TTL_SECONDS: '20',
      SWEEP_INTERVAL_SECONDS: '1',
      LOG_LEVEL: 'warn',
    };
    app = await start();
    client = new ServiceClient({ service: 'metering', url: redis.url, timeoutMs: 5_000 });
  });

  afterAll(async () => {
    await client?.close();
    await app?.stop();
    await redis?.stop();
  });

  it('is ready when Redis answers', async () => {
    const res = await fetch(`${app.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ready', checks: { redis: { ok: true } } });
    expect(await client.send(MeteringMessages.ping, {})).toMatchObject({ service: 'metering' });
  });

  it('serves the account, balance and usage messages with their contract schemas', async () => {
    const owner = `owner-${randomUUID()}`;
    const agent = `agent-${randomUUID()}`;
    await client.emit(MeteringMessages.agentRegistered, { agent_id: agent, client_name: 'wire bot' });
    await waitUntil(async () => (await client.eventBacklog()) === 0);
    expect(await client.send(MeteringMessages.getUsage, { caller_id: agent })).toMatchObject({ plan: 'trial', remaining: 500 });
    const hold = await client.send(MeteringMessages.reserve, { request_id: `${agent}-1`, caller_id: agent, tool: 'search_ads', amount: 20 });
    expect(hold).toEqual({ request_id: `${agent}-1`, pool: 'agent', reserved: 20, remaining: 480 });
    expect(await client.send(MeteringMessages.settle, { request_id: `${agent}-1`, caller_id: agent, charged: 4 })).toEqual({
      request_id: `${agent}-1`,
      charged: 4,
      refunded: 16,
      remaining: 496,
    });

    for (const n of [2, 3, 4, 5]) {
      await client.send(MeteringMessages.reserve, { request_id: `${agent}-${n}`, caller_id: agent, tool: 'search_ads', amount: 100 });
      await client.send(MeteringMessages.settle, { request_id: `${agent}-${n}`, caller_id: agent, charged: 100 });
    }
    const short = (await client
      .send(MeteringMessages.reserve, { request_id: `${agent}-6`, caller_id: agent, tool: 'search_ads', amount: 100 })
      .catch((e: unknown) => e)) as ServiceError;
    expect(short.payload).toEqual({
      code: 'insufficient_balance',
      message: expect.any(String),
      balance: { needed: 100, remaining: 96, max_affordable_limit: 96 },
    });
    expect(short.status).toBe(402);

    const bad = (await client
      .send(MeteringMessages.reserve, { request_id: 'x', caller_id: agent, tool: 'search_ads', amount: -1 })
      .catch((e: unknown) => e)) as ServiceError;
    expect(bad.payload).toMatchObject({ code: 'invalid_argument', errors: [{ field: 'amount' }] });

    await client.send(MeteringMessages.upsertOwner, { owner_id: owner, plan: 'pro' });
    const attached = await client.send(MeteringMessages.attachAgent, { agent_id: agent, owner_id: owner, client_name: null });
    expect(attached.agents).toEqual([{ agent_id: agent, client_name: 'wire bot', attached_at: expect.any(String) }]);
    const dayBefore = new Date().toISOString().slice(0, 10);
    await client.send(MeteringMessages.reserve, { request_id: `${agent}-7`, caller_id: agent, tool: 'search_ads', amount: 100 });
    await client.send(MeteringMessages.settle, { request_id: `${agent}-7`, caller_id: agent, charged: 100 });
    expect(await client.send(MeteringMessages.getUsage, { caller_id: agent })).toMatchObject({ plan: 'pro', pool: 'owner', used: 100 });
    expect((await client.send(MeteringMessages.getOwner, { owner_id: owner })).usage).toMatchObject({ used: 100, remaining: 39_900 });
    const dayAfter = new Date().toISOString().slice(0, 10);
    expect(await client.send(MeteringMessages.dailyUsage, { owner_id: owner, date_from: dayBefore, date_to: dayAfter })).toEqual({
      data: [{ date: expect.any(String), agent_id: agent, charged: 100, calls: 1 }],
    });
    const events = await client.send(MeteringMessages.listUsageEvents, { caller_id: agent, limit: 3 });
    expect(events.data.map((e) => [e.request_id, e.charged, e.refunded])).toEqual([
      [`${agent}-7`, 100, 0],
      [`${agent}-5`, 100, 0],
      [`${agent}-4`, 100, 0],
    ]);
    expect(events.pagination.has_more).toBe(true);
    await client.send(MeteringMessages.detachAgent, { agent_id: agent, owner_id: owner });
    expect(await client.send(MeteringMessages.getUsage, { caller_id: agent })).toMatchObject({ plan: 'trial', pool: 'agent' });
    expect(
      ((await client.send(MeteringMessages.getOwner, { owner_id: `nobody-${randomUUID()}` }).catch((e: unknown) => e)) as ServiceError).code,
    ).toBe('not_found');
  });

  it('loses no token when the process dies between reserve and settle', async () => {
    const agent = `crash-${randomUUID()}`;
    const reservedAt = Date.now();
    await client.send(MeteringMessages.reserve, { request_id: `${agent}-kept`, caller_id: agent, tool: 'search_ads', amount: 30 });
    await client.send(MeteringMessages.reserve, { request_id: `${agent}-abandoned`, caller_id: agent, tool: 'search_ads', amount: 70 });
    expect(await app.stop('SIGKILL')).toBeNull();
    app = await start();

    // the restarted process settles what the dead one reserved
    expect(await client.send(MeteringMessages.settle, { request_id: `${agent}-kept`, caller_id: agent, charged: 30 })).toMatchObject({
      charged: 30,
    });
    // and its sweeper gives back the reservation nobody will settle (the ledger read itself never sweeps)
    const deadline = reservedAt + 20_000 + 15_000;
    let expired: unknown;
    while (!expired && Date.now() < deadline) {
      const { data } = await client.send(MeteringMessages.listUsageEvents, { caller_id: agent, limit: 10 });
      expired = data.find((e) => e.request_id === `${agent}-abandoned`);
      if (!expired) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(expired).toMatchObject({ reserved: 70, charged: 0, refunded: 70 });
    expect(await client.send(MeteringMessages.getUsage, { caller_id: agent })).toMatchObject({ used: 30, reserved: 0, remaining: 470 });
  });
});
