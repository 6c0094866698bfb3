import { MeteringMessages, QueryMessages } from '@adintel/contracts';
import { Redis } from '@adintel/redis';
import { ServiceClient } from '@adintel/transport';
import { monitorRedis, waitUntil, type AppProcess, type MonitoredCommand } from '@adintel/testing';
import { callTool, getJson, newAgentToken, register } from './agent';
import { STACK_START_TIMEOUT_MS, startStack, type Stack } from './stack';

jest.setTimeout(240_000);

/**
 * The transport with replicas, as real processes on one private Redis: three query-api and two metering
 * processes behind one gateway. Counts come from each process's own "message handled" log lines.
 */
describe('replicas share the work over the Redis Streams transport', () => {
  let stack: Stack;
  let base: string;
  let agents: { token: string; client_id: string }[];
  /** Receipts per agent: tokens each answered call said it charged. */
  const receipts = new Map<string, number>();

  beforeAll(async () => {
    stack = await startStack({
      queryReplicas: 3,
      meteringReplicas: 2,
      // Holds of calls that failed mid-way come back quickly, so "reservations end at 0" is observable.
      env: { RESERVATION_TTL_SECONDS: '5', SWEEP_INTERVAL_SECONDS: '1' },
    });
    base = stack.baseUrl;
    agents = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const { client, token } = await newAgentToken(base);
        return { token, client_id: client.client_id };
      }),
    );
  }, STACK_START_TIMEOUT_MS);

  afterAll(async () => {
    await stack?.stop();
  });

  it('answers 1,000 REST and MCP calls from 8 agents, each handled exactly once across the replicas', async () => {
    const marks = markLogs([...stack.replicas.query, ...stack.replicas.metering]);
    const outcomes = await runCalls(1_000, 16);
    expect(outcomes.filter((o) => o.status !== 200)).toEqual([]);

    const handled = (replicas: AppProcess[], pattern: string) => replicas.map((p) => handledSince(p, marks, pattern));
    // A replica logs "message handled" after its reply is on its way: the last calls' lines can reach this
    // process after their answers did. Wait for them (an extra line would still fail the exact counts below).
    const expected: [AppProcess[], string][] = [
      [stack.replicas.query, QueryMessages.searchAds.pattern],
      [stack.replicas.metering, MeteringMessages.reserve.pattern],
      [stack.replicas.metering, MeteringMessages.settle.pattern],
    ];
    await waitUntil(() => expected.every(([replicas, pattern]) => sum(handled(replicas, pattern)) >= 1_000), 5_000).catch(() => undefined);
    const queryHandled = handled(stack.replicas.query, QueryMessages.searchAds.pattern);
    const reserves = handled(stack.replicas.metering, MeteringMessages.reserve.pattern);
    const settles = handled(stack.replicas.metering, MeteringMessages.settle.pattern);
    expect(sum(queryHandled)).toBe(1_000);
    expect(sum(reserves)).toBe(1_000);
    expect(sum(settles)).toBe(1_000);
    // Every replica took part (the consumer group spreads the load).
    for (const count of [...queryHandled, ...reserves]) expect(count).toBeGreaterThan(0);

    await expectAccountsBalanced();
  });

  it('sends one gateway call with a fixed number of Redis round trips (MONITOR on the private Redis)', async () => {
    const agent = agents[0] as { token: string };
    const receipt = async (call: Promise<{ status: number; charged: number }>) => {
      const outcome = await call;
      receipts.set(agent.token, (receipts.get(agent.token) ?? 0) + outcome.charged);
      return outcome;
    };
    await receipt(restSearch(agent.token)); // warm: liveness cached, scripts loaded
    /** One call under MONITOR: the commands of its window that travel on its path, and their round trips. */
    const measured = async () => {
      const monitor = await monitorRedis(stack.redisUrl);
      try {
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect((await receipt(restSearch(agent.token))).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        await monitor.stop();
      }
      const { commands } = monitor;
      // Background work of the transport, not on the call's path: blocking reads re-armed after a message,
      // heartbeats, claim passes, liveness refreshes.
      // Metering's reservation sweeper (SSCAN of the pools holding tokens) also runs on its own timer.
      const background = new Set(['xreadgroup', 'xread', 'xautoclaim', 'xclaim', 'set', 'exists', 'ping', 'xinfo', 'client', 'sscan']);
      // Commands a Lua script runs inside Redis are not round trips (MONITOR shows them with source "lua").
      // query-api's live door gauges and trims the ingest stream on its own timer (XLEN, XTRIM of ingest:*): seen once
      // inside the call's window at load average 31.
      const liveDoor = (c: { args: string[] }) => (c.args[1] ?? '').startsWith('ingest:');
      const onPath = commands.filter((c) => c.source !== 'lua' && !background.has((c.args[0] ?? '').toLowerCase()) && !liveDoor(c));
      // The call runs from its rate-limit script to the ack of its settle: a sweeper script (EVALSHA) timed just
      // before or after it is not part of it.
      const first = onPath.findIndex((c) => c.args.some((arg) => arg.startsWith('gateway:ratelimit:')));
      const last = onPath.findLastIndex((c) => c.args[0]?.toLowerCase() === 'xack' && c.args[1] === 'transport:metering:requests');
      const critical = onPath.slice(first, last + 1);
      return { critical, trips: roundTrips(critical), listing: critical.map((c) => c.args.slice(0, 2).join(' ')) };
    };
    // A sweeper's script can also land inside the window: a sweeper (every second here, on both metering replicas)
    // sweeps the pools holding tokens, and the call's pool holds from its reserve to its settle (seen in CI beside two
    // busy loops: an EVALSHA from the other replica between the settle's script and its reply, 10 trips). Background
    // work only adds commands, so the call's own count is the fewest of a few calls; an extra trip on the call's path
    // is in every one of them.
    let best = await measured();
    for (let attempt = 1; attempt < 3 && best.trips > 9; attempt++) {
      const next = await measured();
      if (next.trips < best.trips) best = next;
    }
    const { critical, trips, listing } = best;
    // 9 round trips, 6 of them the transport's. The rate-limit script; then for each of the 3 messages (reserve,
    // search, settle) the request's XADD and one write carrying the reply, its expiry and the ack (with the
    // replica's next read when the handler did no I/O); between them metering's own data commands, one script
    // each (reserve: who pays, the repeat check and the hold; settle).
    // The PUB/SUB client needed 17 round trips (20 commands) for the same call; metering's reserve took 3 before it
    // picked the paying pool inside its script (11 in all).
    // The full listing with the sources, should the count ever differ (the diff below shows only its edges).
    if (trips !== 9) console.error(critical.map((c) => `${c.source} ${c.args.slice(0, 2).join(' ')}`).join('\n'));
    expect({ trips, listing }).toEqual({ trips: 9, listing });
    expect(listing.filter((c) => c.startsWith('xadd transport:') && !c.includes(':replies:'))).toEqual([
      'xadd transport:metering:requests',
      'xadd transport:query:requests',
      'xadd transport:metering:requests',
    ]);
  });

  it('fails fast (503) while every query-api replica is frozen, and recovers when they run again', async () => {
    const agent = agents[0] as { token: string };
    const probe = new Redis(stack.redisUrl);
    try {
      for (const replica of stack.replicas.query) pause(replica, 'SIGSTOP');
      await waitUntil(async () => (await probe.exists('transport:query:alive')) === 0, 10_000);
      const { res } = await getJson(base, agent.token, '/api/v1/ads?limit=1');
      expect(res.status).toBe(503);
    } finally {
      for (const replica of stack.replicas.query) pause(replica, 'SIGCONT');
      probe.disconnect();
    }
    await waitUntil(async () => (await getJson(base, agent.token, '/api/v1/ads?limit=1')).res.status === 200, 10_000);
    receipts.set(agent.token, (receipts.get(agent.token) ?? 0) + 1);
  });

  it('survives SIGKILL of one query-api and one metering mid-load: answered or a clean 503/504, nothing charged for a failure', async () => {
    const load = runCalls(300, 16);
    await waitUntil(() => completed >= 60, 60_000);
    const [deadQuery, deadMetering] = [stack.replicas.query[0] as AppProcess, stack.replicas.metering[0] as AppProcess];
    await Promise.all([deadQuery.stop('SIGKILL'), deadMetering.stop('SIGKILL')]);
    const outcomes = await load;
    const unexpected = outcomes.filter((o) => ![200, 503, 504].includes(o.status));
    expect(unexpected).toEqual([]);
    expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThan(150);
    await expectAccountsBalanced();
  });

  it('keeps agent registrations while metering is stopped for 30 s, and processes every one when it is back', async () => {
    const metering = new ServiceClient({ service: 'metering', url: stack.redisUrl, timeoutMs: 5_000 });
    try {
      await Promise.all(stack.replicas.metering.map((p) => p.stop('SIGTERM')));
      const registered = await Promise.all(Array.from({ length: 5 }, () => register(base)));
      expect(await metering.eventBacklog()).toBe(5);
      await new Promise((resolve) => setTimeout(resolve, 30_000));
      const back = await stack.startMetering();
      await waitUntil(async () => (await metering.eventBacklog()) === 0, 30_000);
      // The "message handled" line follows the ack: wait for the lines too (an extra one still fails below).
      const lines = () => handledLines(back, MeteringMessages.agentRegistered.pattern);
      await waitUntil(() => lines().length >= registered.length, 5_000).catch(() => undefined);
      const processed = lines().map((line) => line['outcome']);
      expect(processed).toEqual(registered.map(() => 'ok'));
    } finally {
      await metering.close();
    }
  });

  let completed = 0;

  /** `total` calls spread over the agents, alternating REST and MCP, `concurrency` at a time. */
  async function runCalls(total: number, concurrency: number): Promise<{ status: number; charged: number; detail?: string }[]> {
    completed = 0;
    const outcomes: { status: number; charged: number; detail?: string }[] = [];
    let next = 0;
    const worker = async () => {
      while (next < total) {
        const i = next++;
        const agent = agents[i % agents.length] as { token: string };
        const outcome = i % 2 === 0 ? await restSearch(agent.token) : await mcpSearch(agent.token);
        receipts.set(agent.token, (receipts.get(agent.token) ?? 0) + outcome.charged);
        outcomes.push(outcome);
        completed += 1;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return outcomes;
  }

  /** A call's status and tokens charged; a refused one says why (the problem's detail), so a failure names it. */
  async function restSearch(token: string): Promise<{ status: number; charged: number; detail?: string }> {
    const res = await fetch(`${base}/api/v1/ads?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    const outcome = { status: res.status, charged: Number(res.headers.get('x-tokens-charged') ?? 0) };
    return res.status === 200 ? outcome : { ...outcome, detail: text.slice(0, 300) };
  }

  async function mcpSearch(token: string) {
    const { status, body } = await callTool(base, token, 'search_ads', { limit: 1 });
    const meta = body.result?._meta as { tokens_charged?: number; problem?: { status?: number; detail?: string } } | undefined;
    // An MCP tool error carries the problem's HTTP status in _meta; the HTTP exchange itself is 200.
    if (!body.result?.isError) return { status, charged: meta?.tokens_charged ?? 0 };
    return { status: meta?.problem?.status ?? 500, charged: meta?.tokens_charged ?? 0, detail: meta?.problem?.detail ?? JSON.stringify(body).slice(0, 300) };
  }

  /** Each agent: usage = the sum of its receipts = the sum of its ledger; no reservation left. */
  async function expectAccountsBalanced() {
    for (const agent of agents) {
      await waitUntil(async () => (await getJson(base, agent.token, '/api/v1/usage')).body['reserved'] === 0, 20_000);
      const usage = (await getJson(base, agent.token, '/api/v1/usage')).body;
      let ledger = 0;
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const page = (await getJson(base, agent.token, `/api/v1/usage/events?limit=100${query}`)).body as {
          data: { charged: number }[];
          pagination: { next_cursor: string | null };
        };
        ledger += page.data.reduce((total, event) => total + event.charged, 0);
        cursor = page.pagination.next_cursor;
      } while (cursor);
      const receipted = receipts.get(agent.token) ?? 0;
      expect({ agent: agents.indexOf(agent), used: usage['used'], ledger }).toEqual({ agent: agents.indexOf(agent), used: receipted, ledger: receipted });
    }
  }
});

type LogLine = Record<string, unknown>;

function handledLines(process: AppProcess, pattern: string, from = 0): LogLine[] {
  return process.output
    .slice(from)
    .filter((line) => line.includes('message handled') && line.includes(pattern))
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => line['pattern'] === pattern);
}

function markLogs(processes: AppProcess[]): Map<AppProcess, number> {
  return new Map(processes.map((p) => [p, p.output.length]));
}

function handledSince(process: AppProcess, marks: Map<AppProcess, number>, pattern: string): number {
  return handledLines(process, pattern, marks.get(process)).filter((line) => line['outcome'] !== 'expired').length;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/**
 * Commands that travel together count once: a MULTI..EXEC transaction, and the transport's reply
 * (XADD to a reply stream, maybe PEXPIRE, then XACK, back to back in one write from one connection).
 */
function roundTrips(commands: MonitoredCommand[]): number {
  let trips = 0;
  const inMulti = new Set<string>();
  // The previous command of each connection: on a busy machine MONITOR interleaves other connections' commands
  // between the parts of one pipeline, so "pipelined with the previous" is judged per connection.
  const previousOf = new Map<string, { name: string; key: string }>();
  for (const { source, args } of commands) {
    const name = (args[0] ?? '').toLowerCase();
    const key = args[1] ?? '';
    const previous = previousOf.get(source);
    const pipelinedWithPrevious =
      previous !== undefined &&
      ((name === 'pexpire' && previous.name === 'xadd' && previous.key.startsWith('transport:replies:')) ||
        (name === 'xack' && (previous.name === 'pexpire' || (previous.name === 'xadd' && previous.key.startsWith('transport:replies:')))));
    if (name === 'multi') inMulti.add(source);
    else if (name === 'exec') {
      inMulti.delete(source);
      trips += 1;
    } else if (!inMulti.has(source) && !pipelinedWithPrevious) trips += 1;
    previousOf.set(source, { name, key });
  }
  return trips;
}

function pause(process: AppProcess, signal: 'SIGSTOP' | 'SIGCONT') {
  const pid = process.pid;
  if (pid === undefined) throw new Error(`${process.name} exposes no pid`);
  globalThis.process.kill(pid, signal);
}
