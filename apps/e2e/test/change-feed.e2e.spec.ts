import type { Redis } from '@adintel/redis';
import { waitUntil } from '@adintel/testing';
import { callTool, getJson } from './agent';
import { liveStack, STACK_START_TIMEOUT_MS, type LiveStack, type Stack } from './stack';

/** The seeded demo data's day (apps/query-api/src/ingest/demo-generator.ts): sightings on it do not move the day. */
const DAY = '2026-11-15';

interface Sighting {
  id: string;
  countries?: string[];
  status?: 'active' | 'inactive';
  impressions?: number;
  activity?: number;
}

/** One ingest line of the watched advertiser (apps/query-api/README.md, "Ingest format"). */
const line = (s: Sighting) =>
  JSON.stringify({
    id: s.id,
    title: `Quokka travel insurance ${s.id}`,
    body: 'Cover for every trip',
    landing_url: 'https://quokka-cover.example.com/quote',
    platform_name: 'facebook',
    advertiser: { id: 'adv_feed_e2e', name: 'Quokka Cover', account_id: 'fb_feed_e2e' },
    webmaster: null,
    status_today: s.status ?? 'active',
    first_seen_date: '2026-11-10',
    last_seen_date: DAY,
    activity_days_amount: s.activity ?? 3,
    countries: s.countries ?? ['AU'],
    languages: ['en'],
    categories: ['finance_and_banking'],
    creative: { id: `cr_${s.id}`, format: 'image' },
    media: [],
    app: null,
    impressions: s.impressions ?? 1000,
    popularity: 2,
  });

type FeedPage = { data: { id: string; change?: string; changed_at?: string }[]; pagination: { watermark: string | null; has_more: boolean } };

describe('the change feed end to end: watermark, live sightings, then only what changed, on REST and MCP', () => {
  let stack: Stack;
  let producer: Redis;
  let token: string;
  let live: LiveStack | undefined;
  const send = (...sightings: Sighting[]) => Promise.all(sightings.map((s) => producer.xadd('ingest:ads', '*', 'line', line(s))));
  const ad = async (id: string) => (await getJson(stack.baseUrl, token, `/api/v1/ads/${id}`)).body;
  const used = async () => Number((await getJson(stack.baseUrl, token, '/api/v1/usage')).body['used']);
  const WATCH = '/api/v1/ads?advertiser_id=adv_feed_e2e&limit=20';

  beforeAll(async () => {
    live = await liveStack('e2e-feed-producer');
    ({ stack, producer, token } = live);
  }, STACK_START_TIMEOUT_MS);
  afterAll(() => live?.stop(), 60_000);

  it('returns exactly the new, changed and ended ads, one token each; the next watermark returns nothing for nothing', async () => {
    await send({ id: 'ad_feed_a' }, { id: 'ad_feed_b' }, { id: 'ad_feed_c' });
    await waitUntil(async () => (await getJson(stack.baseUrl, token, '/api/v1/ads/ad_feed_c')).res.status === 200, 15_000, 100);

    // The baseline: a plain search with the filters to watch, on both surfaces; each carries a watermark.
    const baseline = (await getJson(stack.baseUrl, token, WATCH)).body as unknown as FeedPage;
    expect(baseline.data.map((a) => a.id).sort()).toEqual(['ad_feed_a', 'ad_feed_b', 'ad_feed_c']);
    const restMark = baseline.pagination.watermark as string;
    expect(restMark).toEqual(expect.any(String));
    const mcpBaseline = await callTool(stack.baseUrl, token, 'search_ads', { advertiser_id: 'adv_feed_e2e' });
    const mcpMark = (mcpBaseline.body.result?.structuredContent as FeedPage).pagination.watermark as string;
    expect(mcpMark).toEqual(expect.any(String));

    // A new ad; a re-sighting that adds a country; an ad that ends; one seen again with only counters moving.
    await send(
      { id: 'ad_feed_d' },
      { id: 'ad_feed_a', countries: ['AU', 'NZ'] },
      { id: 'ad_feed_b', status: 'inactive' },
      { id: 'ad_feed_c', impressions: 5000, activity: 4 },
    );
    await waitUntil(
      async () =>
        (await ad('ad_feed_d'))['id'] === 'ad_feed_d' &&
        (await ad('ad_feed_a'))['countries']?.toString() === 'AU,NZ' &&
        (await ad('ad_feed_b'))['status_today'] === 'inactive' &&
        (await ad('ad_feed_c'))['impressions'] === 5000,
      15_000,
      100,
    );

    const before = await used();
    const feed = (await getJson(stack.baseUrl, token, `${WATCH}&changed_since=${encodeURIComponent(restMark)}`)).body as unknown as FeedPage;
    expect(new Map(feed.data.map((a) => [a.id, a.change]))).toEqual(
      new Map([
        ['ad_feed_d', 'new'],
        ['ad_feed_a', 'changed'],
        ['ad_feed_b', 'ended'],
      ]),
    );
    expect(feed.data).toHaveLength(3);
    for (const row of feed.data) expect(Date.parse(String(row.changed_at))).toBeGreaterThan(0);
    expect(await used()).toBe(before + 3);

    const next = feed.pagination.watermark as string;
    const quiet = (await getJson(stack.baseUrl, token, `${WATCH}&changed_since=${encodeURIComponent(next)}`)).body as unknown as FeedPage;
    expect(quiet.data).toEqual([]);
    expect(await used()).toBe(before + 3);

    // MCP: the same feed from its own watermark, charged per row; then nothing, for nothing.
    const mcpFeed = await callTool(stack.baseUrl, token, 'search_ads', { advertiser_id: 'adv_feed_e2e', changed_since: mcpMark });
    const mcpPage = mcpFeed.body.result?.structuredContent as FeedPage;
    expect(mcpPage.data.map((a) => [a.id, a.change]).sort()).toEqual([
      ['ad_feed_a', 'changed'],
      ['ad_feed_b', 'ended'],
      ['ad_feed_d', 'new'],
    ]);
    expect(mcpFeed.body.result?._meta).toMatchObject({ tokens_charged: 3 });
    const mcpQuiet = await callTool(stack.baseUrl, token, 'search_ads', { advertiser_id: 'adv_feed_e2e', changed_since: mcpPage.pagination.watermark });
    expect((mcpQuiet.body.result?.structuredContent as FeedPage).data).toEqual([]);
    expect(mcpQuiet.body.result?._meta).toMatchObject({ tokens_charged: 0 });

    // count_ads with the watermark is free and agrees.
    const count = await callTool(stack.baseUrl, token, 'count_ads', { advertiser_id: 'adv_feed_e2e', changed_since: mcpMark });
    expect(count.body.result?.structuredContent).toMatchObject({ total: 3 });
  }, 90_000);

  it('a malformed watermark is a 400 naming changed_since; a foreign one a 410 problem saying to re-baseline', async () => {
    const bad = await getJson(stack.baseUrl, token, `${WATCH}&changed_since=not-a-watermark`);
    expect(bad.res.status).toBe(400);
    expect(bad.body).toMatchObject({ status: 400, errors: [{ field: 'changed_since' }] });
    const foreignMark = `w1.${Buffer.from(JSON.stringify(['another-store', 3])).toString('base64url')}`;
    const gone = await getJson(stack.baseUrl, token, `${WATCH}&changed_since=${foreignMark}`);
    expect(gone.res.status).toBe(410);
    expect(gone.res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(String(gone.body['detail'])).toMatch(/re-baseline with a plain search_ads/);
    const mcpGone = await callTool(stack.baseUrl, token, 'search_ads', { changed_since: foreignMark });
    expect(mcpGone.body.result?.isError).toBe(true);
  }, 30_000);
});
