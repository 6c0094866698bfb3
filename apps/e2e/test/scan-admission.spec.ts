import { waitUntil } from '@adintel/testing';
import { newAgentToken } from './agent';
import { LARGE_SEEDED_ADS, STACK_START_TIMEOUT_MS, startStack, type Stack } from './stack';

jest.setTimeout(600_000);

/**
 * Issue 33 finding 2 on the whole service: the costliest call (`get_ads_breakdown field=overview limit=1`, eight
 * GROUP BYs over every ad) flooded by one trial agent must not slow another agent's searches, and costs what its
 * sections are. The store's size comes from SCAN_ADMISSION_ADS (default 20,000; the figures in docs/security.md are
 * at 100,000), and SCAN_ADMISSION_DATA_DIR keeps a seeded store between runs (the seed skips a store with ads).
 */
const ADS = Number(process.env['SCAN_ADMISSION_ADS'] ?? LARGE_SEEDED_ADS);
const SCANS_IN_FLIGHT = 2;

describe('the costliest call is bounded', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      ads: ADS,
      queryWorkers: 2,
      trialAllowance: 1_000_000,
      ...(process.env['SCAN_ADMISSION_DATA_DIR'] ? { queryDataDir: process.env['SCAN_ADMISSION_DATA_DIR'] } : {}),
      logLevel: 'warn',
      appEnv: { 'mcp-gateway': { SCANS_IN_FLIGHT_PER_ACCOUNT: String(SCANS_IN_FLIGHT) } },
    });
  }, STACK_START_TIMEOUT_MS);
  afterAll(() => stack?.stop());

  const get = (token: string, path: string) => fetch(`${stack.baseUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
  const overview = (token: string) => get(token, '/ads/breakdown/overview?limit=1');

  /** Milliseconds of each of `n` sequential searches of the contract's first example. */
  async function searchTimes(token: string, n: number): Promise<number[]> {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      const res = await get(token, '/ads?country=US&limit=20');
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      times.push(performance.now() - started);
    }
    return times;
  }
  const p95 = (times: number[]) => [...times].sort((a, b) => a - b)[Math.ceil(times.length * 0.95) - 1] ?? 0;

  it('prices an overview by its sections: limit=1 holds and charges one bucket per section', async () => {
    const { token } = await newAgentToken(stack.baseUrl);
    const res = await overview(token);
    const body = (await res.json()) as { sections: { data: unknown[] }[] };
    expect(res.status).toBe(200);
    expect(body.sections.map((s) => s.data.length)).toEqual(body.sections.map(() => 1));
    expect(res.headers.get('x-tokens-charged')).toBe(String(body.sections.length));
  });

  it(`admits ${SCANS_IN_FLIGHT} overviews of one agent at once: of 30 sent together the rest are answered 429 with Retry-After`, async () => {
    const { token } = await newAgentToken(stack.baseUrl);
    // query-api frozen while the 30 arrive, so no admitted overview can finish and free its place before the last
    // one is read (at 20,000 ads one may, on a quick machine): what is admitted is then exactly what is in flight.
    const queryApi = stack.apps['query-api'].pid;
    let answered = 0;
    let pending: Promise<Response[]>;
    process.kill(queryApi, 'SIGSTOP');
    try {
      pending = Promise.all(Array.from({ length: 30 }, () => overview(token).finally(() => answered++)));
      await waitUntil(() => answered >= 30 - SCANS_IN_FLIGHT, 60_000, 20);
    } finally {
      process.kill(queryApi, 'SIGCONT');
    }
    const answers = await pending;
    const statuses = answers.map((res) => res.status);
    // The admitted ones answer once query-api runs again (200), or 503/504 had it been frozen past its liveness.
    expect(statuses.filter((s) => s !== 429).length).toBeLessThanOrEqual(SCANS_IN_FLIGHT);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(30 - SCANS_IN_FLIGHT);
    const refused = answers.find((res) => res.status === 429);
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused?.json()) as { detail: string }).detail).toMatch(/scanning calls/);
  });

  /** Floods overviews from these agents, 30 at a time each round, until stopped; counts what was sent and admitted. */
  function flood(tokens: readonly string[]) {
    let flooding = true;
    const sent = { total: 0, admitted: 0 };
    const running = Promise.all(
      tokens.map(async (token) => {
        while (flooding) {
          const statuses = await Promise.all(Array.from({ length: 30 / tokens.length }, async () => (await overview(token)).status));
          sent.total += statuses.length;
          sent.admitted += statuses.filter((s) => s === 200).length;
        }
      }),
    );
    return {
      sent,
      stop: async () => {
        flooding = false;
        await running;
      },
    };
  }

  /**
   * Side by side in one run: idle, one trial agent flooding (admitted SCANS_IN_FLIGHT at a time), and the same 30
   * overviews in flight from 15 agents (what one agent could do before admission). Wall times on a shared machine
   * are noise (docs/security.md gives the figures), so the 2x bound is asserted only with SCAN_ADMISSION_P95=strict,
   * on a machine of its own.
   */
  it("another agent's search_ads p95 under one agent's flood of overviews, beside idle and beside 30 overviews in flight", async () => {
    const flooder = await newAgentToken(stack.baseUrl);
    const many = await Promise.all(Array.from({ length: 15 }, () => newAgentToken(stack.baseUrl)));
    const searcher = await newAgentToken(stack.baseUrl);
    await searchTimes(searcher.token, 5); // warm: the first calls fetch the JWKS and open connections
    const idle = p95(await searchTimes(searcher.token, 60));
    const one = flood([flooder.token]);
    const underOne = p95(await searchTimes(searcher.token, 60));
    await one.stop();
    const thirty = flood(many.map((agent) => agent.token));
    const underThirty = p95(await searchTimes(searcher.token, 60));
    await thirty.stop();
    process.stdout.write(
      `scan admission at ${ADS} ads: search_ads p95 idle ${idle.toFixed(1)} ms; one agent flooding ${underOne.toFixed(1)} ms ` +
        `(${(underOne / idle).toFixed(2)}x; overviews sent ${one.sent.total}, admitted ${one.sent.admitted}); 30 in flight from ` +
        `15 agents ${underThirty.toFixed(1)} ms (${(underThirty / idle).toFixed(2)}x; admitted ${thirty.sent.admitted})\n`,
    );
    // Each round of 30 sent together: SCANS_IN_FLIGHT admitted, the rest answered 429 at once; on a busy machine a
    // round's calls arrive spread out and an overview at 20,000 ads can end meanwhile, its slot admitting one more (it
    // happened once in CI: 11 of 5 rounds). The exact bound, with query-api frozen, is the test above's; this one
    // holds the flood to a few per round, against the 30 it sends.
    expect(one.sent.admitted).toBeLessThanOrEqual((one.sent.total / 30) * SCANS_IN_FLIGHT * 2);
    if (process.env['SCAN_ADMISSION_P95'] === 'strict') expect(underOne).toBeLessThanOrEqual(2 * idle);
  });

  it('gives the free data tools a bucket of their own: a flood of count_ads meets 429, and paid calls still pass', async () => {
    const { token } = await newAgentToken(stack.baseUrl);
    const statuses = await Promise.all(Array.from({ length: 200 }, async () => (await get(token, '/ads/count?country=US')).status));
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 429).every((s) => s === 200)).toBe(true);
    expect((await get(token, '/ads?country=US&limit=1')).status).toBe(200);
  });
});
