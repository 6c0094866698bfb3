import { randomUUID } from 'node:crypto';
import { Redis } from '@adintel/redis';
import { MeteringKeys } from '../../../src/app/redis/keys';
import { FakeClock, meteringForSuite, replicaAt, testConfig, TEST_REDIS_URL, type Metering } from '../../support/metering-harness';

/**
 * An agent's trial (its record and its pool) expires TRIAL_TTL_SECONDS after its last use or token, unless attached,
 * so metering forgets agents whose clients the auth server deleted. TTLs are Redis's own (real time); the app clock
 * only dates records.
 */
describe("an agent's trial expires when unused, and never while attached (real Redis)", () => {
  const TTL_S = 60;
  const config = testConfig({ TRIAL_TTL_SECONDS: String(TTL_S) });
  const keys = new MeteringKeys(config.REDIS_KEY_PREFIX);
  const clock = new FakeClock();
  let metering: Metering;
  meteringForSuite(config, clock, (instances) => (metering = replicaAt(instances, 0)));
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(() => redis.disconnect());

  const trialPool = (agent: string) => keys.pool(`agent:life:${agent}`);
  const spend = async (caller: string, amount: number) => {
    const requestId = `spend-${randomUUID()}`;
    await metering.reservations.reserve({ request_id: requestId, caller_id: caller, tool: 'search_ads', amount });
    await metering.reservations.settle(requestId, caller, amount);
  };
  /** Seconds left of a key: -1 kept, -2 gone. */
  const ttl = (key: string) => redis.ttl(key);

  it('gives a new agent and its trial pool the trial TTL, and moves both on every paid call', async () => {
    const agent = `agent-${randomUUID()}`;
    await metering.accounts.registerAgent(agent, 'bot');
    expect(await ttl(keys.agent(agent))).toBeGreaterThan(TTL_S - 3);
    expect(await ttl(trialPool(agent))).toBe(-2); // no pool before the first paid call
    await spend(agent, 10);
    expect(await ttl(trialPool(agent))).toBeGreaterThan(TTL_S - 3);
    expect(await ttl(trialPool(agent))).toBeLessThanOrEqual(TTL_S);

    // shorten both by hand: the next paid call moves them back to the full TTL
    await redis.expire(keys.agent(agent), 5);
    await redis.expire(trialPool(agent), 5);
    await spend(agent, 10);
    expect(await ttl(keys.agent(agent))).toBeGreaterThan(TTL_S - 3);
    expect(await ttl(trialPool(agent))).toBeGreaterThan(TTL_S - 3);
  });

  it('never shortens a trial (GT): one that lives longer keeps its end', async () => {
    const agent = `agent-${randomUUID()}`;
    await spend(agent, 10);
    await redis.expire(trialPool(agent), 10 * TTL_S);
    await spend(agent, 10);
    expect(await ttl(trialPool(agent))).toBeGreaterThan(9 * TTL_S);
  });

  it('answers a token issued with the end of the trial (the earlier of record and pool), after moving it', async () => {
    const agent = `agent-${randomUUID()}`;
    await spend(agent, 10);
    await redis.expire(keys.agent(agent), 5);
    await redis.expire(trialPool(agent), 5);
    const answer = await metering.accounts.trialUsed(agent);
    const [seconds] = await redis.time();
    expect(answer.trial).toBe('expiring');
    const endsAt = Date.parse((answer as { expires_at: string }).expires_at);
    expect(endsAt / 1000 - Number(seconds)).toBeGreaterThan(TTL_S - 3);
    expect(endsAt / 1000 - Number(seconds)).toBeLessThanOrEqual(TTL_S + 1);
    expect(endsAt).toBe(await redis.pexpiretime(keys.agent(agent)));

    // a pool that ends later than the record: the answer is the record's end
    await redis.expire(trialPool(agent), 10 * TTL_S);
    const again = (await metering.accounts.trialUsed(agent)) as { expires_at: string };
    expect(Date.parse(again.expires_at)).toBe(await redis.pexpiretime(keys.agent(agent)));
  });

  it('answers none for an id it keeps no agent by, and creates nothing for it', async () => {
    const stranger = `stranger-${randomUUID()}`;
    expect(await metering.accounts.trialUsed(stranger)).toEqual({ trial: 'none' });
    expect(await redis.exists(keys.agent(stranger), trialPool(stranger))).toBe(0);
    const owner = `owner-${randomUUID()}`;
    await metering.accounts.upsertOwner(owner, 'pro');
    expect(await metering.accounts.trialUsed(owner)).toEqual({ trial: 'none' });
  });

  it("keeps an attached agent's trial for good, through paid calls, tokens and sweeps, and lets it age again once detached", async () => {
    const owner = `owner-${randomUUID()}`;
    const agent = `agent-${randomUUID()}`;
    await metering.accounts.upsertOwner(owner, 'pro');
    await spend(agent, 50);
    await metering.accounts.attachAgent(agent, owner, 'bot');
    expect([await ttl(keys.agent(agent)), await ttl(trialPool(agent))]).toEqual([-1, -1]);

    await spend(agent, 20); // paid from the owner's pool
    const held = `held-${randomUUID()}`;
    await metering.reservations.reserve({ request_id: held, caller_id: agent, tool: 'search_ads', amount: 5 });
    clock.advance(config.RESERVATION_TTL_SECONDS * 1_000 + 1);
    await metering.sweeper.sweepOnce();
    expect(await metering.accounts.trialUsed(agent)).toEqual({ trial: 'kept' });
    expect([await ttl(keys.agent(agent)), await ttl(trialPool(agent))]).toEqual([-1, -1]);

    await metering.accounts.detachAgent(agent, owner);
    expect(await ttl(keys.agent(agent))).toBeGreaterThan(TTL_S - 3);
    expect(await ttl(trialPool(agent))).toBeGreaterThan(TTL_S - 3);
    expect(await metering.usage.usage(agent)).toMatchObject({ pool: 'agent', used: 50, remaining: 450 });
  });

  it('gives a trial stored before trials expired an end on its next use', async () => {
    const agent = `legacy-${randomUUID()}`;
    await redis.hset(keys.agent(agent), 'created_at', '2026-01-01T00:00:00.000Z');
    await redis.hset(trialPool(agent), 'allowance', 500, 'used', 100, 'reserved', 0);
    expect(await metering.accounts.trialUsed(agent)).toMatchObject({ trial: 'expiring' });
    expect(await ttl(keys.agent(agent))).toBeGreaterThan(TTL_S - 3);
    expect(await ttl(trialPool(agent))).toBeGreaterThan(TTL_S - 3);
    expect(await metering.usage.usage(agent)).toMatchObject({ used: 100 });
  });

  it("lets a ledger live the retention past its latest event, whoever's it is", async () => {
    const owner = `owner-${randomUUID()}`;
    const agent = `agent-${randomUUID()}`;
    await metering.accounts.upsertOwner(owner, 'pro');
    await metering.accounts.attachAgent(agent, owner, 'bot');
    await spend(agent, 5);
    const retention = config.LEDGER_RETENTION_DAYS * 86_400;
    for (const ledger of [keys.ledger('agent', agent), keys.ledger('owner', owner)]) {
      expect(await ttl(ledger)).toBeGreaterThan(retention - 5);
      expect(await ttl(ledger)).toBeLessThanOrEqual(retention);
    }
  });
});

describe('an unused trial is gone after the trial TTL (real Redis, a 2 s TTL)', () => {
  const config = testConfig({ TRIAL_TTL_SECONDS: '2' });
  const keys = new MeteringKeys(config.REDIS_KEY_PREFIX);
  const clock = new FakeClock();
  let metering: Metering;
  meteringForSuite(config, clock, (instances) => (metering = replicaAt(instances, 0)));

  it('deletes the record and the pool of an agent nobody used for that long, and keeps the one that was used', async () => {
    const idle = `idle-${randomUUID()}`;
    const busy = `busy-${randomUUID()}`;
    for (const agent of [idle, busy]) {
      const requestId = `r-${randomUUID()}`;
      await metering.reservations.reserve({ request_id: requestId, caller_id: agent, tool: 'search_ads', amount: 7 });
      await metering.reservations.settle(requestId, agent, 7);
    }
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await metering.accounts.trialUsed(busy);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const redis = new Redis(TEST_REDIS_URL);
    try {
      expect(await redis.exists(keys.agent(idle), keys.pool(`agent:life:${idle}`))).toBe(0);
      expect(await redis.exists(keys.agent(busy), keys.pool(`agent:life:${busy}`))).toBe(2);
    } finally {
      redis.disconnect();
    }
    expect(await metering.usage.usage(busy)).toMatchObject({ used: 7 });
  });
});
