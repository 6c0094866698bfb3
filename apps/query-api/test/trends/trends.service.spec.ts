import { Trends } from '@adintel/contracts';
import type { DataWindowService } from '../../src/paging/data-window.service';
import type { AdStore, TrendQuery, TrendResult } from '../../src/store/ad-store.port';
import { previousWindow, TrendsService } from '../../src/trends/trends.service';

/** The store is replaced by a recording fake; the maths under test is the service's. */
function serviceWith(result: TrendResult) {
  const queries: TrendQuery[] = [];
  const store = { trends: async (q: TrendQuery) => (queries.push(q), result) } as unknown as AdStore;
  const dataWindow = {
    window: async (from?: string, to?: string) => ({ from: from ?? '2026-01-02', to: to ?? '2026-01-31' }),
  } as unknown as DataWindowService;
  return { service: new TrendsService(store, dataWindow), queries };
}

describe('TrendsService', () => {
  it('computes the previous window of equal length', () => {
    expect(previousWindow({ from: '2026-01-02', to: '2026-01-31' })).toEqual({ from: '2025-12-03', to: '2026-01-01' });
    expect(previousWindow({ from: '2026-03-01', to: '2026-03-01' })).toEqual({ from: '2026-02-28', to: '2026-02-28' });
  });

  it('ranks rows and adds share, change and evidence with the filters', async () => {
    const { service, queries } = serviceWith({
      totalAds: 40,
      rows: [
        { key: 'US', label: 'US', ads: 30, previousAds: 10, detail: { advertisers: 3, top_categories: [] } },
        { key: 'DE', label: 'DE', ads: 5, previousAds: 0, detail: { advertisers: 1, top_categories: [] } },
      ],
    });
    const trends = await service.trends({ dimension: 'geo', platform: 'tiktok', ai_category: 'finance_and_banking', limit: 10 });
    expect(Trends.parse(trends)).toEqual(trends);
    expect(queries[0]).toMatchObject({
      filter: { platform: 'tiktok', category: 'finance_and_banking' },
      window: { from: '2026-01-02', to: '2026-01-31' },
      previous: { from: '2025-12-03', to: '2026-01-01' },
    });
    expect(trends.data[0]).toMatchObject({
      rank: 1,
      label: 'United States',
      share: 0.75,
      change: { previous_ads: 10, delta: 20, ratio: 3 },
      evidence: {
        tool: 'search_ads',
        arguments: {
          country: 'US',
          platforms: ['tiktok'],
          creative_categories: ['finance_and_banking'],
          date_from: '2026-01-02',
          date_to: '2026-01-31',
        },
      },
    });
    expect(trends.data[1]?.change).toEqual({ previous_ads: 0, delta: 5, ratio: null });
  });

  it('adds growth to scaling creatives and pins timeline evidence to the day', async () => {
    const scaling = serviceWith({
      totalAds: 3,
      rows: [{ key: 'cr_1', label: 'Spin', ads: 3, previousAds: 1, detail: { creative_format: 'video', advertiser_id: 'adv_1' } }],
    });
    const s = await scaling.service.trends({ dimension: 'scaling-creatives', limit: 5 });
    expect(s.data[0]?.detail).toEqual({ creative_format: 'video', advertiser_id: 'adv_1', growth: 2 });
    expect(s.data[0]?.evidence.arguments['creative_id']).toBe('cr_1');

    const days = ['2026-01-29', '2026-01-30', '2026-01-31'].map((date) => ({
      key: date,
      label: date,
      ads: 1,
      previousAds: 1,
      detail: { date, new_ads: 0, active_ads: 1 },
    }));
    const timeline = await serviceWith({ totalAds: 1, rows: days }).service.trends({ dimension: 'timeline', limit: 2 });
    expect(timeline.data.map((r) => r.key)).toEqual(['2026-01-30', '2026-01-31']);
    expect(timeline.data[0]?.evidence.arguments).toEqual({ date_from: '2026-01-30', date_to: '2026-01-30' });
  });
});
