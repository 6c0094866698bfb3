import { randomUUID } from 'node:crypto';
import type { ServiceError } from '@adintel/contracts';
import { FakeClock, meteringForSuite, replicaAt, rejectionOf, testConfig, type Metering } from '../../support/metering-harness';

const PRO = 40_000;

describe('owners, agents and their pools against a real Redis', () => {
  const config = testConfig();
  const clock = new FakeClock();
  let metering: Metering;
  meteringForSuite(config, clock, (instances) => (metering = replicaAt(instances, 0)));

  const spend = async (caller: string, amount: number, charged = amount) => {
    const requestId = `spend-${randomUUID()}`;
    const hold = await metering.reservations.reserve({ request_id: requestId, caller_id: caller, tool: 'search_ads', amount });
    await metering.reservations.settle(requestId, caller, charged);
    return hold;
  };

  it('starts a new agent on the 500-token trial, which never resets', async () => {
    clock.set('2026-01-10T08:00:00.000Z');
    const agent = `agent-${randomUUID()}`;
    expect(await metering.accounts.registerAgent(agent, 'research bot')).toEqual({
      plan: 'trial',
      pool: 'agent',
      allowance: 500,
      used: 0,
      reserved: 0,
      remaining: 500,
      period: null,
    });
    await spend(agent, 120, 100);
    clock.set('2027-06-01T00:00:00.000Z');
    expect(await metering.usage.usage(agent)).toMatchObject({ plan: 'trial', used: 100, remaining: 400, period: null });
  });

  it('creates an agent on first sight, without agentRegistered', async () => {
    expect(await metering.usage.usage(`unseen-${randomUUID()}`)).toMatchObject({ plan: 'trial', pool: 'agent', remaining: 500 });
  });

  it('resets a Pro pool at the UTC month boundary and charges a call in flight to the month it reserved in', async () => {
    const owner = `owner-${randomUUID()}`;
    clock.set('2026-03-31T23:59:00.000Z');
    await metering.accounts.upsertOwner(owner, 'pro');
    await spend(owner, 100, 90);
    const inFlight = `inflight-${randomUUID()}`;
    await metering.reservations.reserve({ request_id: inFlight, caller_id: owner, tool: 'search_ads', amount: 50 });
    expect(await metering.usage.usage(owner)).toEqual({
      plan: 'pro',
      pool: 'owner',
      allowance: PRO,
      used: 90,
      reserved: 50,
      remaining: PRO - 140,
      period: { start: '2026-03-01T00:00:00.000Z', end: '2026-04-01T00:00:00.000Z' },
    });

    clock.set('2026-03-31T23:59:59.999Z');
    expect(await metering.usage.usage(owner)).toMatchObject({ used: 90, reserved: 50 });

    clock.set('2026-04-01T00:00:00.000Z');
    expect(await metering.usage.usage(owner)).toEqual({
      plan: 'pro',
      pool: 'owner',
      allowance: PRO,
      used: 0,
      reserved: 0,
      remaining: PRO,
      period: { start: '2026-04-01T00:00:00.000Z', end: '2026-05-01T00:00:00.000Z' },
    });
    expect(await metering.reservations.settle(inFlight, owner, 10)).toMatchObject({ charged: 10, refunded: 40 });
    expect(await metering.usage.usage(owner)).toMatchObject({ used: 0, remaining: PRO });
    await spend(owner, 7);
    expect(await metering.usage.usage(owner)).toMatchObject({ used: 7, remaining: PRO - 7 });
  });

  it('lets an attached agent draw from its owner and sends a detached one back to the trial it kept', async () => {
    clock.set('2026-05-10T10:00:00.000Z');
    const owner = `owner-${randomUUID()}`;
    const agent = `agent-${randomUUID()}`;
    await metering.accounts.upsertOwner(owner, 'pro');
    await metering.accounts.registerAgent(agent, 'scout');
    await spend(agent, 60, 60);

    const account = await metering.accounts.attachAgent(agent, owner, 'scout v2');
    expect(account).toMatchObject({
      owner_id: owner,
      plan: 'pro',
      agents: [{ agent_id: agent, client_name: 'scout v2', attached_at: '2026-05-10T10:00:00.000Z' }],
    });
    expect(await metering.accounts.attachAgent(agent, owner, null)).toEqual(account);

    const hold = await spend(agent, 700, 650);
    expect(hold).toMatchObject({ pool: 'owner', remaining: PRO - 700 });
    await spend(owner, 100, 50);
    expect(await metering.usage.usage(agent)).toMatchObject({ plan: 'pro', pool: 'owner', used: 700, remaining: PRO - 700 });
    expect((await metering.accounts.ownerAccount(owner)).usage).toMatchObject({ used: 700 });

    const detached = await metering.accounts.detachAgent(agent, owner);
    expect(detached.agents).toEqual([]);
    expect(await metering.usage.usage(agent)).toMatchObject({ plan: 'trial', pool: 'agent', used: 60, remaining: 440, period: null });
    expect(await spend(agent, 10)).toMatchObject({ pool: 'agent', remaining: 430 });
    expect((await metering.accounts.ownerAccount(owner)).usage).toMatchObject({ used: 700 });
  });

  it('keeps one owner per agent and answers unknown owners and plans with typed errors', async () => {
    const first = `owner-${randomUUID()}`;
    const second = `owner-${randomUUID()}`;
    const agent = `agent-${randomUUID()}`;
    await metering.accounts.upsertOwner(first, 'pro');
    await metering.accounts.upsertOwner(second, 'pro');
    const [a, b] = await Promise.allSettled([
      metering.accounts.attachAgent(agent, first, null),
      metering.accounts.attachAgent(agent, second, null),
    ]);
    const outcomes = [a.status, b.status].sort();
    expect(outcomes).toEqual(['fulfilled', 'rejected']);
    const loser = (a.status === 'rejected' ? a.reason : (b as PromiseRejectedResult).reason) as ServiceError;
    expect(loser.code).toBe('conflict');

    const nobody = `nobody-${randomUUID()}`;
    expect(((await rejectionOf(metering.accounts.ownerAccount(nobody))) as ServiceError).code).toBe('not_found');
    expect(((await rejectionOf(metering.accounts.attachAgent(agent, nobody, null))) as ServiceError).code).toBe('not_found');
    expect(((await rejectionOf(metering.accounts.detachAgent(`stray-${randomUUID()}`, first))) as ServiceError).code).toBe('not_found');
    const badPlan = (await rejectionOf(metering.accounts.upsertOwner(first, 'platinum'))) as ServiceError;
    expect(badPlan.payload).toMatchObject({ code: 'invalid_argument', errors: [{ field: 'plan', allowed: ['trial', 'pro'] }] });
  });

  it('counts tokens and calls per agent per day for the owner’s chart', async () => {
    const owner = `owner-${randomUUID()}`;
    const [alpha, beta] = [`alpha-${randomUUID()}`, `beta-${randomUUID()}`];
    clock.set('2026-06-01T09:00:00.000Z');
    await metering.accounts.upsertOwner(owner, 'pro');
    await metering.accounts.attachAgent(alpha, owner, 'alpha');
    await metering.accounts.attachAgent(beta, owner, 'beta');
    await spend(alpha, 20, 20);
    await spend(alpha, 20, 5);
    await spend(beta, 10, 0);
    clock.set('2026-06-03T23:00:00.000Z');
    await spend(beta, 30, 30);

    const { data } = await metering.usage.daily(owner, '2026-05-31', '2026-06-03');
    expect(data).toEqual(
      [
        { date: '2026-06-01', agent_id: alpha, charged: 25, calls: 2 },
        { date: '2026-06-01', agent_id: beta, charged: 0, calls: 1 },
        { date: '2026-06-03', agent_id: beta, charged: 30, calls: 1 },
      ].sort((x, y) => x.date.localeCompare(y.date) || x.agent_id.localeCompare(y.agent_id)),
    );
    const backwards = (await rejectionOf(metering.usage.daily(owner, '2026-06-03', '2026-06-01'))) as ServiceError;
    expect(backwards.payload.errors?.[0]?.field).toBe('date_to');
    expect(((await rejectionOf(metering.usage.daily(`nobody-${randomUUID()}`, '2026-06-01', '2026-06-01'))) as ServiceError).code).toBe(
      'not_found',
    );
  });
});
