import { randomUUID } from 'node:crypto';
import type { ServiceError } from '@adintel/contracts';
import { Redis } from '@adintel/redis';
import { monitorRedis, startPrivateRedis, type PrivateRedis } from '@adintel/testing';
import { MeteringKeys } from '../../../src/app/redis/keys';
import { FakeClock, meteringForSuite, replicaAt, rejectionOf, startMetering, testConfig, TEST_REDIS_URL, type Metering } from '../../support/metering-harness';

const PLANS = JSON.stringify({
  trial: { allowance: 500, period: 'lifetime' },
  pro: { allowance: 1_000, period: 'month' },
  gold: { allowance: 5_000, period: 'month' },
});

/**
 * The reserve and usage scripts pick the paying pool inside Redis (PAYING_POOL): these are its paths, run on two
 * replicas so that nothing one of them remembers can make it charge the wrong pool after a change made on the other.
 */
describe('the pool that pays, picked inside the reserve and usage scripts', () => {
  const config = testConfig({ PLANS });
  const clock = new FakeClock(new Date('2026-08-10T12:00:00.000Z'));
  let a: Metering;
  let b: Metering;
  meteringForSuite(config, clock, (instances) => ([a, b] = [replicaAt(instances, 0), replicaAt(instances, 1)]), 2);

  const reserve = (m: Metering, caller: string, amount: number, requestId = `r-${randomUUID()}`) =>
    m.reservations.reserve({ request_id: requestId, caller_id: caller, tool: 'search_ads', amount });

  it('creates an agent on its first reserve and holds from its trial', async () => {
    const agent = `first-${randomUUID()}`;
    const key = new MeteringKeys(config.REDIS_KEY_PREFIX).agent(agent);
    const redis = new Redis(TEST_REDIS_URL);
    try {
      expect(await redis.exists(key)).toBe(0);
      expect(await reserve(a, agent, 30)).toMatchObject({ pool: 'agent', reserved: 30, remaining: 470 });
      expect(await redis.hgetall(key)).toEqual({ created_at: '2026-08-10T12:00:00.000Z' });
      // a later sight keeps the first one's date; agentRegistered names it
      clock.advance(60_000);
      await b.accounts.registerAgent(agent, 'late name');
      expect(await redis.hgetall(key)).toEqual({
        created_at: '2026-08-10T12:00:00.000Z',
        client_name: 'late name',
      });
    } finally {
      redis.disconnect();
    }
  });

  it('charges an agent attached on another replica to the owner, and its trial again once detached there', async () => {
    const owner = `owner-${randomUUID()}`;
    const agent = `agent-${randomUUID()}`;
    await b.accounts.upsertOwner(owner, 'pro');
    expect(await reserve(a, agent, 100)).toMatchObject({ pool: 'agent', remaining: 400 });

    await b.accounts.attachAgent(agent, owner, null);
    expect(await reserve(a, agent, 200)).toMatchObject({ pool: 'owner', remaining: 800 });
    expect(await a.usage.usage(agent)).toMatchObject({ plan: 'pro', pool: 'owner', allowance: 1_000, reserved: 200, remaining: 800 });
    expect(await a.usage.usage(owner)).toMatchObject({ plan: 'pro', pool: 'owner', reserved: 200 });

    await b.accounts.detachAgent(agent, owner);
    expect(await reserve(a, agent, 50)).toMatchObject({ pool: 'agent', remaining: 350 });
    expect(await a.usage.usage(agent)).toMatchObject({ plan: 'trial', pool: 'agent', reserved: 150, remaining: 350, period: null });
    expect(await a.usage.usage(owner)).toMatchObject({ reserved: 200, remaining: 800 });
  });

  it('follows an owner’s plan change made on another replica', async () => {
    const owner = `owner-${randomUUID()}`;
    await a.accounts.upsertOwner(owner, 'pro');
    expect(await reserve(a, owner, 900)).toMatchObject({ pool: 'owner', remaining: 100 });
    await b.accounts.upsertOwner(owner, 'gold');
    expect(await reserve(a, owner, 900)).toMatchObject({ pool: 'owner', remaining: 3_200 });
    expect(await a.usage.usage(owner)).toMatchObject({ plan: 'gold', allowance: 5_000, reserved: 1_800 });
  });

  it('answers a repeated request id with its first hold, even after the caller moved to another pool', async () => {
    const owner = `owner-${randomUUID()}`;
    const agent = `agent-${randomUUID()}`;
    const requestId = `same-${randomUUID()}`;
    await a.accounts.upsertOwner(owner, 'pro');
    const first = await reserve(a, agent, 40, requestId);
    expect(first).toMatchObject({ pool: 'agent', reserved: 40, remaining: 460 });
    await b.accounts.attachAgent(agent, owner, null);
    expect(await reserve(b, agent, 40, requestId)).toEqual(first);
    expect(await a.usage.usage(owner)).toMatchObject({ reserved: 0 });
    // another caller reusing it: conflict, whichever pool that caller would pay from
    expect(((await rejectionOf(reserve(a, owner, 40, requestId))) as ServiceError).code).toBe('conflict');
    expect(((await rejectionOf(reserve(a, `other-${randomUUID()}`, 40, requestId))) as ServiceError).code).toBe('conflict');
  });

  it('is short against the owner’s pool for an attached agent, and holds nothing', async () => {
    const owner = `owner-${randomUUID()}`;
    const agent = `agent-${randomUUID()}`;
    await a.accounts.upsertOwner(owner, 'pro');
    await a.accounts.attachAgent(agent, owner, null);
    await reserve(b, owner, 950);
    const short = (await rejectionOf(reserve(a, agent, 60))) as ServiceError;
    expect(short.payload).toMatchObject({ code: 'insufficient_balance', balance: { needed: 60, remaining: 50, max_affordable_limit: 50 } });
    expect(await a.usage.usage(agent)).toMatchObject({ pool: 'owner', reserved: 950, remaining: 50 });
  });

  it('closes a reservation its own settle finds past the deadline as expired, charging nothing', async () => {
    const agent = `late-${randomUUID()}`;
    const hold = await reserve(a, agent, 80);
    clock.advance(config.RESERVATION_TTL_SECONDS * 1_000);
    expect(await b.reservations.settle(hold.request_id, agent, 80)).toEqual({ request_id: hold.request_id, charged: 0, refunded: 80, remaining: 500 });
    expect(await a.reservations.settle(hold.request_id, agent, 80)).toEqual({ request_id: hold.request_id, charged: 0, refunded: 80, remaining: 500 });
    const { data } = await a.usage.events(agent, 10);
    expect(data).toEqual([expect.objectContaining({ request_id: hold.request_id, charged: 0, refunded: 80 })]);
  });

  it('answers an account on a plan no longer in PLANS with an internal error, and holds nothing', async () => {
    const owner = `owner-${randomUUID()}`;
    const agent = `agent-${randomUUID()}`;
    await a.accounts.upsertOwner(owner, 'gold');
    await a.accounts.attachAgent(agent, owner, null);
    const withoutGold = await startMetering(
      { ...config, PLANS: { trial: { allowance: 500, period: 'lifetime' }, pro: { allowance: 1_000, period: 'month' } } },
      clock,
    );
    try {
      for (const caller of [owner, agent]) {
        const error = (await rejectionOf(reserve(withoutGold, caller, 10))) as ServiceError;
        expect({ code: error.code, message: error.message }).toEqual({ code: 'internal', message: 'plan "gold" is not configured in PLANS' });
        expect(((await rejectionOf(withoutGold.usage.usage(caller))) as ServiceError).code).toBe('internal');
      }
    } finally {
      await withoutGold.close();
    }
    expect(await a.usage.usage(agent)).toMatchObject({ plan: 'gold', reserved: 0 });
  });
});

/** One Redis round trip per message: MONITOR on a Redis of its own, where the only client is this metering. */
describe('Redis round trips of reserve, settle, get_usage and list_usage_events', () => {
  let redis: PrivateRedis;
  let metering: Metering;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    metering = await startMetering(testConfig({ REDIS_URL: redis.url }), new FakeClock());
  });
  afterAll(async () => {
    await metering?.close();
    await redis?.stop();
  });

  /** The commands a client sent while `work` ran (not those its scripts ran inside Redis). */
  async function commandsOf(work: () => Promise<unknown>): Promise<string[]> {
    const monitor = await monitorRedis(redis.url);
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await work();
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await monitor.stop();
    }
    return monitor.commands.filter(({ source }) => source !== 'lua').map(({ args }) => (args[0] ?? '').toLowerCase());
  }

  it('is one script each, for a new agent, an attached agent and an owner', async () => {
    const owner = `owner-${randomUUID()}`;
    const attached = `attached-${randomUUID()}`;
    await metering.accounts.upsertOwner(owner, 'pro');
    await metering.accounts.attachAgent(attached, owner, null);
    // the first run of each script loads it (NOSCRIPT, then EVAL): not what every later call costs
    const warm = `warm-${randomUUID()}`;
    await metering.reservations.reserve({ request_id: warm, caller_id: owner, tool: 'search_ads', amount: 1 });
    await metering.reservations.settle(warm, owner, 1);
    await metering.usage.usage(owner);
    await metering.usage.events(owner, 1);

    for (const caller of [`new-${randomUUID()}`, attached, owner]) {
      const requestId = `r-${randomUUID()}`;
      expect(await commandsOf(() => metering.reservations.reserve({ request_id: requestId, caller_id: caller, tool: 'search_ads', amount: 5 }))).toEqual([
        'evalsha',
      ]);
      expect(await commandsOf(() => metering.reservations.settle(requestId, caller, 3))).toEqual(['evalsha']);
      expect(await commandsOf(() => metering.usage.usage(caller))).toEqual(['evalsha']);
      expect(await commandsOf(() => metering.usage.events(caller, 10))).toEqual(['evalsha']);
    }
  });
});
