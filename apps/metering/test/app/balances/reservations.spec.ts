import { randomInt, randomUUID } from 'node:crypto';
import { ServiceError } from '@adintel/contracts';
import { MEDIA_FILE, worstCaseCost } from '@adintel/tool-catalogue';
import { FakeClock, meteringForSuite, replicaAt, rejectionOf, startMetering, testConfig, type Metering } from '../../support/metering-harness';

const TRIAL = 500;
const TTL_MS = 120_000;

describe('reservations against a real Redis', () => {
  const config = testConfig();
  const clock = new FakeClock();
  let replicas: Metering[];
  let metering: Metering;

  // three app instances with their own connections, like three replicas sharing one Redis
  meteringForSuite(
    config,
    clock,
    (instances) => {
      replicas = instances;
      metering = replicaAt(instances, 0);
    },
    3,
  );

  it('runs 200 concurrent reserve/settle cycles on a 500-token trial without overspending or losing a token', async () => {
    for (let round = 0; round < 3; round++) {
      const agent = `agent-${round}-${randomUUID()}`;
      let rowsReturned = 0;
      let reserveCalls = 0;
      let shortfalls = 0;
      let monitoring = true;
      const observed: { used: number; reserved: number; remaining: number }[] = [];

      const monitor = (async () => {
        while (monitoring) {
          observed.push(await metering.usage.usage(agent));
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();

      const cycle = async (i: number) => {
        const replica = replicaAt(replicas, i % replicas.length);
        const limit = randomInt(1, 101);
        const requestId = `${agent}-call-${i}`;
        try {
          reserveCalls++;
          const hold = await replica.reservations.reserve({ request_id: requestId, caller_id: agent, tool: 'search_ads', amount: limit });
          expect(hold).toMatchObject({ request_id: requestId, pool: 'agent', reserved: limit });
          expect(hold.remaining).toBeGreaterThanOrEqual(0);
        } catch (error) {
          const balance = (error as ServiceError).payload.balance;
          expect((error as ServiceError).code).toBe('insufficient_balance');
          expect(balance?.needed).toBe(limit);
          expect(balance?.remaining).toBeLessThan(limit);
          expect(balance?.max_affordable_limit).toBe(balance?.remaining);
          shortfalls++;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, randomInt(0, 5)));
        if (randomInt(0, 10) === 0) {
          const released = await replica.reservations.release(requestId, agent);
          expect(released).toMatchObject({ charged: 0, refunded: limit });
          return;
        }
        const rows = randomInt(0, limit + 1);
        const settled = await replica.reservations.settle(requestId, agent, rows);
        expect(settled).toMatchObject({ request_id: requestId, charged: rows, refunded: limit - rows });
        rowsReturned += rows;
      };

      await Promise.all(Array.from({ length: 200 }, (_, i) => cycle(i)));
      monitoring = false;
      await monitor;

      const usage = await metering.usage.usage(agent);
      expect(reserveCalls).toBe(200);
      expect(shortfalls).toBeGreaterThan(0);
      expect(usage.used).toBe(rowsReturned);
      expect(usage.reserved).toBe(0);
      expect(usage.remaining).toBe(TRIAL - rowsReturned);
      expect(usage.used).toBeLessThanOrEqual(TRIAL);
      for (const seen of observed) {
        expect(seen.used + seen.reserved).toBeLessThanOrEqual(TRIAL);
        expect(seen.remaining).toBe(TRIAL - seen.used - seen.reserved);
      }

      // the ledger agrees to the token
      let ledgerCharged = 0;
      let cursor: string | undefined;
      do {
        const page = await metering.usage.events(agent, 100, cursor);
        ledgerCharged += page.data.reduce((sum, e) => sum + e.charged, 0);
        cursor = page.pagination.next_cursor ?? undefined;
      } while (cursor);
      expect(ledgerCharged).toBe(rowsReturned);
    }
  });

  it('holds once and charges once when the same reserve and settle are delivered twice', async () => {
    const agent = `twice-${randomUUID()}`;
    const request = { request_id: `req-${randomUUID()}`, caller_id: agent, tool: 'search_ads', amount: 50 };
    const [first, second] = await Promise.all([
      replicaAt(replicas, 0).reservations.reserve(request),
      replicaAt(replicas, 1).reservations.reserve(request),
    ]);
    expect(second).toEqual(first);
    expect(await metering.reservations.reserve(request)).toEqual(first);
    expect(await metering.usage.usage(agent)).toMatchObject({ used: 0, reserved: 50, remaining: TRIAL - 50 });

    const [settled, again] = await Promise.all([
      replicaAt(replicas, 1).reservations.settle(request.request_id, agent, 20),
      replicaAt(replicas, 2).reservations.settle(request.request_id, agent, 20),
    ]);
    expect(again).toEqual(settled);
    expect(settled).toEqual({ request_id: request.request_id, charged: 20, refunded: 30, remaining: TRIAL - 20 });
    // a late release or a different amount cannot change a closed reservation
    expect(await metering.reservations.release(request.request_id, agent)).toEqual(settled);
    expect(await metering.reservations.settle(request.request_id, agent, 5)).toEqual(settled);
    // nor can a late duplicate reserve hold again
    expect(await metering.reservations.reserve(request)).toEqual(first);
    expect(await metering.usage.usage(agent)).toMatchObject({ used: 20, reserved: 0, remaining: TRIAL - 20 });
    const events = await metering.usage.events(agent, 10);
    expect(events.data).toHaveLength(1);
  });

  it('holds and charges a priced operation beside the tools (media_file), recorded in the ledger under its name', async () => {
    const agent = `media-${randomUUID()}`;
    const request = { request_id: `${agent}-file`, caller_id: agent, tool: MEDIA_FILE.name, amount: worstCaseCost(MEDIA_FILE, {}) };
    expect(await metering.reservations.reserve(request)).toMatchObject({ reserved: 10, remaining: TRIAL - 10 });
    expect(await metering.reservations.settle(request.request_id, agent, 10)).toMatchObject({ charged: 10, remaining: TRIAL - 10 });
    const events = await metering.usage.events(agent, 10);
    expect(events.data).toEqual([expect.objectContaining({ tool: 'media_file', charged: 10 })]);
  });

  it('refuses to charge more than was reserved, naming the field', async () => {
    const agent = `over-${randomUUID()}`;
    await metering.reservations.reserve({ request_id: `${agent}-1`, caller_id: agent, tool: 'search_ads', amount: 10 });
    const error = (await rejectionOf(metering.reservations.settle(`${agent}-1`, agent, 11))) as ServiceError;
    expect(error.payload).toMatchObject({ code: 'invalid_argument', errors: [{ field: 'charged' }] });
    expect(await metering.reservations.settle(`${agent}-1`, agent, 10)).toMatchObject({ charged: 10, refunded: 0 });
  });

  it('answers a short balance with needed, remaining and the largest affordable limit', async () => {
    const agent = `short-${randomUUID()}`;
    for (const [i, charged] of [100, 100, 100, 100, 77].entries()) {
      await metering.reservations.reserve({ request_id: `${agent}-${i}`, caller_id: agent, tool: 'search_ads', amount: 100 });
      await metering.reservations.settle(`${agent}-${i}`, agent, charged);
    }
    const error = (await rejectionOf(
      metering.reservations.reserve({ request_id: `${agent}-5`, caller_id: agent, tool: 'search_ads', amount: 100 }),
    )) as ServiceError;
    expect(error.payload).toMatchObject({
      code: 'insufficient_balance',
      balance: { needed: 100, remaining: 23, max_affordable_limit: 23 },
    });
    expect(error.status).toBe(402);
    // a flat-priced tool cannot be made affordable by lowering a limit
    await metering.reservations.reserve({ request_id: `${agent}-6`, caller_id: agent, tool: 'search_ads', amount: 23 });
    const flat = (await rejectionOf(
      metering.reservations.reserve({ request_id: `${agent}-7`, caller_id: agent, tool: 'get_ad', amount: 1 }),
    )) as ServiceError;
    expect(flat.payload.balance).toEqual({ needed: 1, remaining: 0, max_affordable_limit: 0 });
  });

  it('rejects an unknown tool, a foreign caller and an unknown reservation with typed errors', async () => {
    const agent = `errors-${randomUUID()}`;
    const unknownTool = (await rejectionOf(
      metering.reservations.reserve({ request_id: `${agent}-0`, caller_id: agent, tool: 'mine_bitcoin', amount: 1 }),
    )) as ServiceError;
    expect(unknownTool.payload).toMatchObject({ code: 'invalid_argument', errors: [{ field: 'tool' }] });

    await metering.reservations.reserve({ request_id: `${agent}-1`, caller_id: agent, tool: 'search_ads', amount: 5 });
    const stolen = (await rejectionOf(
      metering.reservations.reserve({ request_id: `${agent}-1`, caller_id: 'someone-else', tool: 'search_ads', amount: 5 }),
    )) as ServiceError;
    expect(stolen.code).toBe('conflict');
    expect(((await rejectionOf(metering.reservations.settle(`${agent}-1`, 'someone-else', 1))) as ServiceError).code).toBe('not_found');
    expect(((await rejectionOf(metering.reservations.settle(`${agent}-nope`, agent, 0))) as ServiceError).code).toBe('not_found');
  });

  it('gives the tokens of a reservation never settled back after its deadline, in the scripts and in the sweeper', async () => {
    const agent = `expiry-${randomUUID()}`;
    const other = `expiry-idle-${randomUUID()}`;
    await metering.reservations.reserve({ request_id: `${agent}-lost`, caller_id: agent, tool: 'search_ads', amount: 100 });
    await metering.reservations.reserve({ request_id: `${other}-lost`, caller_id: other, tool: 'search_ads', amount: 40 });
    expect(await metering.usage.usage(agent)).toMatchObject({ reserved: 100, remaining: TRIAL - 100 });

    clock.advance(TTL_MS - 1);
    expect(await metering.usage.usage(agent)).toMatchObject({ reserved: 100 });
    clock.advance(1);

    // nobody calls for `other`: only the sweeper brings its tokens back (the ledger read does not sweep)
    await metering.sweeper.sweepOnce();
    const idleEvents = await metering.usage.events(other, 10);
    expect(idleEvents.data).toEqual([expect.objectContaining({ request_id: `${other}-lost`, reserved: 40, charged: 0, refunded: 40 })]);

    // `agent` is swept by its own next script too
    expect(await metering.usage.usage(agent)).toMatchObject({ used: 0, reserved: 0, remaining: TRIAL });
    // settling too late charges nothing: the tokens are already back
    expect(await metering.reservations.settle(`${agent}-lost`, agent, 60)).toMatchObject({ charged: 0, refunded: 100, remaining: TRIAL });
    expect(await metering.usage.usage(other)).toMatchObject({ used: 0, reserved: 0, remaining: TRIAL });
  });

  it('keeps everything in Redis: a new instance settles what an old one reserved', async () => {
    const agent = `restart-${randomUUID()}`;
    const before = await startMetering(config, clock);
    await before.reservations.reserve({ request_id: `${agent}-1`, caller_id: agent, tool: 'search_ads', amount: 30 });
    await before.close();
    const after = await startMetering(config, clock);
    try {
      expect(await after.usage.usage(agent)).toMatchObject({ reserved: 30 });
      expect(await after.reservations.settle(`${agent}-1`, agent, 12)).toMatchObject({ charged: 12, refunded: 18, remaining: TRIAL - 12 });
    } finally {
      await after.close();
    }
  });
});
