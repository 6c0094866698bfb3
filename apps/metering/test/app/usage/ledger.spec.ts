import { randomUUID } from 'node:crypto';
import type { UsageEvent } from '@adintel/contracts';
import type { ServiceError } from '@adintel/contracts';
import { FakeClock, meteringForSuite, replicaAt, rejectionOf, testConfig, type Metering } from '../../support/metering-harness';

describe('the usage ledger against a real Redis', () => {
  const config = testConfig();
  const clock = new FakeClock(new Date('2026-07-01T00:00:00.000Z'));
  let metering: Metering;
  meteringForSuite(config, clock, (instances) => (metering = replicaAt(instances, 0)));

  async function readAll(caller: string, limit: number): Promise<UsageEvent[]> {
    const events: UsageEvent[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 100; pages++) {
      const page = await metering.usage.events(caller, limit, cursor);
      expect(page.data.length).toBeLessThanOrEqual(limit);
      expect(page.pagination.has_more).toBe(page.pagination.next_cursor !== null);
      events.push(...page.data);
      if (!page.pagination.next_cursor) return events;
      cursor = page.pagination.next_cursor;
    }
    throw new Error('the ledger did not end');
  }

  it('pages through every charge of an account, newest first, without duplicates or gaps', async () => {
    const owner = `owner-${randomUUID()}`;
    const agent = `agent-${randomUUID()}`;
    await metering.accounts.upsertOwner(owner, 'pro');
    await metering.accounts.attachAgent(agent, owner, 'pager');
    const made: string[] = [];
    for (let i = 0; i < 43; i++) {
      const caller = i % 3 === 0 ? owner : agent;
      const requestId = `${owner}-${String(i).padStart(3, '0')}`;
      await metering.reservations.reserve({ request_id: requestId, caller_id: caller, tool: 'search_ads', amount: 10 });
      if (i % 5 === 4) await metering.reservations.release(requestId, caller);
      else await metering.reservations.settle(requestId, caller, i % 10);
      made.push(requestId);
      clock.advance(1_000);
    }

    const events = await readAll(owner, 10);
    expect(events.map((e) => e.request_id)).toEqual([...made].reverse());
    expect(new Set(events.map((e) => e.id)).size).toBe(43);
    const ids = events.map((e) => e.id);
    expect([...ids].sort(compareStreamIds).reverse()).toEqual(ids);
    const times = events.map((e) => e.at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(events.find((e) => e.request_id === made[4])).toMatchObject({ reserved: 10, charged: 0, refunded: 10, tool: 'search_ads' });
    expect(events.find((e) => e.request_id === made[7])).toMatchObject({ agent_id: agent, reserved: 10, charged: 7, refunded: 3 });

    // the agent's own ledger has its own calls only, also in order
    const own = await readAll(agent, 7);
    expect(own.map((e) => e.request_id)).toEqual(made.filter((_, i) => i % 3 !== 0).reverse());
    expect(own.every((e) => e.agent_id === agent)).toBe(true);

    const owed = (await metering.usage.usage(owner)).used;
    expect(events.reduce((sum, e) => sum + e.charged, 0)).toBe(owed);
  });

  it('answers an empty first page for an account with no calls', async () => {
    expect(await metering.usage.events(`quiet-${randomUUID()}`, 20)).toEqual({ data: [], pagination: { next_cursor: null, has_more: false } });
  });

  it('refuses a cursor it did not make', async () => {
    for (const cursor of ['not-a-cursor', Buffer.from('ledger:drop table').toString('base64url')]) {
      const error = (await rejectionOf(metering.usage.events('anyone', 10, cursor))) as ServiceError;
      expect(error.payload).toMatchObject({ code: 'invalid_argument', errors: [{ field: 'cursor' }] });
    }
  });
});

function compareStreamIds(a: string, b: string): number {
  // a stream id is always `<ms>-<seq>`
  const [am = 0n, as = 0n] = a.split('-').map(BigInt);
  const [bm = 0n, bs = 0n] = b.split('-').map(BigInt);
  return am === bm ? Number(as - bs) : am < bm ? -1 : 1;
}
