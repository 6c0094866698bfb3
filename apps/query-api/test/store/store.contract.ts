/**
 * The engine-agnostic contract of the AdStore port, pinned on the small fixture of store-fixture.ts.
 * Every engine runs it: `describeStoreContract('sqlite', load)` in sqlite-store.spec.ts, and the
 * Elasticsearch adapter against a real cluster when ES_URL is set.
 */
import { AD_SORTS, DESTINATION_TYPES, SORT_ORDERS, type Ad, type AdSort, type SortOrder } from '@adintel/contracts';
import type { AdFilter, AdRecord, AdStore, SortKey } from '../../src/store/ad-store.port';
import { FIXTURE_RECORDS } from './store-fixture';

export interface StoreUnderTest {
  store: AdStore;
  close(): Promise<void>;
}

/** Loads the records into a fresh store of the engine and returns its reading side. */
export type LoadStore = (records: AdRecord[]) => Promise<StoreUnderTest>;

const SORT_VALUE: Record<AdSort, (ad: Ad) => string | number> = {
  date: (ad) => ad.first_seen_date,
  days_active: (ad) => ad.days_active,
  activity_days_amount: (ad) => ad.activity_days_amount,
  most_popular: (ad) => ad.popularity,
  impressions: (ad) => ad.impressions,
};

const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

/** The oracle: the expected order of a sort over the fixture. */
function expectedOrder(records: AdRecord[], sort: AdSort, order: SortOrder): string[] {
  const sign = order === 'asc' ? 1 : -1;
  return [...records]
    .sort((a, b) => sign * (compare(SORT_VALUE[sort](a), SORT_VALUE[sort](b)) || compare(a.id, b.id)))
    .map((a) => a.id);
}

const ids = (ads: { id: string }[]) => ads.map((a) => a.id).sort();

export function describeStoreContract(engine: string, load: LoadStore): void {
  describe(`AdStore contract: ${engine}`, () => {
    let subject: StoreUnderTest;
    let store: AdStore;

    beforeAll(async () => {
      subject = await load(FIXTURE_RECORDS);
      store = subject.store;
    });
    afterAll(async () => {
      await subject?.close();
    });

    const search = async (filter: AdFilter) =>
      ids((await store.searchAds({ filter, sort: 'date', order: 'desc', limit: 100 })).rows);

    describe('filters', () => {
      it('landing_domain matches the domain and every subdomain, never a look-alike', async () => {
        expect(await search({ landingDomain: 'example.com' })).toEqual(['ad_01', 'ad_02', 'ad_03', 'ad_10']);
        expect(await search({ landingDomain: 'promo.example.com' })).toEqual(['ad_02']);
        expect(await search({ landingDomain: 'b.example.com' })).toEqual(['ad_03']);
        expect(await search({ landingDomain: 'lucky-bet.co.uk' })).toEqual(['ad_06', 'ad_07', 'ad_08']);
        expect(await search({ landingDomain: 'xample.com' })).toEqual([]);
      });

      it('q matches whole words in title, body and landing URL, all words required', async () => {
        expect(await search({ words: ['shoes'] })).toEqual(['ad_01', 'ad_10']); // title; URL query of ad_10 too
        expect(await search({ words: ['jackpot'] })).toEqual(['ad_06']); // body
        expect(await search({ words: ['clearance'] })).toEqual(['ad_10']);
        expect(await search({ words: ['apply'] })).toEqual(['ad_09']); // URL path only
        expect(await search({ words: ['casino', 'cashback'] })).toEqual(['ad_07']);
        expect(await search({ words: ['casin'] })).toEqual([]);
        expect(await search({ words: ['casino', 'football'] })).toEqual([]);
      });

      it('country, platforms, categories (any of), status and ids', async () => {
        expect(await search({ country: 'CA' })).toEqual(['ad_01', 'ad_02']);
        expect(await search({ platforms: ['tiktok'] })).toEqual(['ad_02', 'ad_07', 'ad_09']);
        expect(await search({ platforms: ['tiktok', 'facebook'] })).toHaveLength(FIXTURE_RECORDS.length);
        expect(await search({ categories: ['mobile_games', 'finance_and_banking'] })).toEqual(['ad_04', 'ad_05', 'ad_07', 'ad_09']);
        expect(await search({ status: 'active' })).toEqual(['ad_01', 'ad_03', 'ad_05', 'ad_06', 'ad_07', 'ad_09']);
        expect(await search({ advertiserId: 'adv_bet' })).toEqual(['ad_06', 'ad_07', 'ad_08']);
        expect(await search({ webmasterId: 'wm_alpha' })).toEqual(['ad_03', 'ad_06', 'ad_07']);
        expect(await search({ appId: 'app_spin' })).toEqual(['ad_06', 'ad_07']);
        expect(await search({ creativeId: 'cr_2' })).toEqual(['ad_02', 'ad_03']);
        expect(await search({ advertiserId: 'adv_bet', country: 'IE' })).toEqual(['ad_07']);
        expect(await search({ country: 'ZZ' })).toEqual([]);
      });

      it('dates select ads active at any time in the range', async () => {
        // active in [01-07, 01-09]: first <= 09 and last >= 07
        expect(await search({ dateFrom: '2026-01-07', dateTo: '2026-01-09' })).toEqual(['ad_01', 'ad_08']);
        expect(await search({ dateFrom: '2026-01-31' })).toEqual(['ad_01', 'ad_03', 'ad_05', 'ad_06', 'ad_07', 'ad_09']);
        expect(await search({ dateTo: '2026-01-04' })).toEqual(['ad_01']);
      });
    });

    describe('sorting and keyset paging', () => {
      for (const sort of AD_SORTS) {
        for (const order of SORT_ORDERS) {
          it(`${sort} ${order}: value then id, pages never overlap or skip`, async () => {
            const expected = expectedOrder(FIXTURE_RECORDS, sort, order);
            const whole = await store.searchAds({ filter: {}, sort, order, limit: 100 });
            expect(whole.rows.map((a) => a.id)).toEqual(expected);
            expect(whole.hasMore).toBe(false);

            const seen: string[] = [];
            let after: SortKey | undefined;
            for (let page = 0; page < 10; page++) {
              const result = await store.searchAds({ filter: {}, sort, order, limit: 3, ...(after ? { after } : {}) });
              seen.push(...result.rows.map((a) => a.id));
              if (!result.hasMore) break;
              expect(result.lastKey).not.toBeNull();
              after = result.lastKey ?? undefined;
            }
            expect(seen).toEqual(expected);
          });
        }
      }

      for (const sort of AD_SORTS) {
        for (const order of SORT_ORDERS) {
          it(`${sort} ${order} with a filter: the filtered order, paged without overlap or skip`, async () => {
            const active = FIXTURE_RECORDS.filter((record) => record.status_today === 'active');
            const seen: string[] = [];
            let after: SortKey | undefined;
            for (let page = 0; page < 10; page++) {
              const result = await store.searchAds({ filter: { status: 'active' }, sort, order, limit: 2, ...(after ? { after } : {}) });
              seen.push(...result.rows.map((a) => a.id));
              if (!result.hasMore) break;
              after = result.lastKey ?? undefined;
            }
            expect(seen).toEqual(expectedOrder(active, sort, order));
          });
        }
      }

      it('returns contract-shaped ads with the derived fields', async () => {
        const page = await store.searchAds({ filter: { creativeId: 'cr_9' }, sort: 'date', order: 'desc', limit: 5 });
        expect(page.rows[0]).toEqual(
          expect.objectContaining({
            id: 'ad_09',
            landing_domain: 'fastloan.com',
            days_active: 3,
            media_count: 2,
            webmaster_id: 'wm_beta',
            app_id: null,
            countries: ['US'],
          }),
        );
        expect(page.lastKey).toEqual({ value: '2026-01-28', id: 'ad_09' });
      });
    });

    describe('counts and breakdowns', () => {
      it('counts exactly up to the threshold, then reports an estimate', async () => {
        expect(await store.countAds({ advertiserId: 'adv_bet' }, 10)).toEqual({ total: 3, estimated: false });
        expect(await store.countAds({}, 10)).toEqual({ total: 10, estimated: false });
        expect(await store.countAds({}, 4)).toEqual({ total: 4, estimated: true });
      });

      it('counts what each filter selects, and stops at the bound whatever drives the count', async () => {
        const cases: [AdFilter, number][] = [
          [{ landingDomain: 'example.com' }, 4],
          [{ words: ['shoes'] }, 2],
          [{ words: ['casino', 'cashback'] }, 1],
          [{ words: ['casino', 'football'] }, 0],
          [{ country: 'CA' }, 2],
          [{ platforms: ['tiktok'] }, 3],
          [{ categories: ['mobile_games', 'finance_and_banking'] }, 4],
          [{ status: 'active' }, 6],
          [{ advertiserId: 'adv_bet' }, 3],
          [{ webmasterId: 'wm_alpha' }, 3],
          [{ appId: 'app_spin' }, 2],
          [{ creativeId: 'cr_2' }, 2],
          [{ advertiserId: 'adv_bet', country: 'IE' }, 1],
          [{ country: 'ZZ' }, 0],
          [{ dateFrom: '2026-01-07', dateTo: '2026-01-09' }, 2],
          [{ dateFrom: '2026-01-31', status: 'active' }, 6],
          [{ words: ['shoes'], country: 'US' }, await search({ words: ['shoes'], country: 'US' }).then((r) => r.length)],
          [{ country: 'GB', categories: ['gambling_and_betting'] }, 3],
          [{ country: 'US', categories: ['mobile_games'] }, await search({ country: 'US', categories: ['mobile_games'] }).then((r) => r.length)],
        ];
        for (const [filter, total] of cases) {
          expect({ filter, count: await store.countAds(filter, 10) }).toEqual({ filter, count: { total, estimated: false } });
          expect(await search(filter)).toHaveLength(total);
          if (total > 1) {
            expect({ filter, count: await store.countAds(filter, total - 1) }).toEqual({ filter, count: { total: total - 1, estimated: true } });
            expect(await store.countAds(filter, total)).toEqual({ total, estimated: false });
          }
        }
      });

      it('breaks matching ads down by a field', async () => {
        const byCountry = await store.breakdown({}, 'country', 3);
        expect(byCountry.total).toBe(10);
        expect(byCountry.buckets).toEqual([
          { key: 'US', ads: 4 },
          { key: 'GB', ads: 3 },
          { key: 'CA', ads: 2 },
        ]);
        const byDomain = await store.breakdown({ platforms: ['facebook'] }, 'landing_domain', 10);
        expect(byDomain.total).toBe(7);
        expect(byDomain.buckets[0]).toEqual({ key: 'example.com', ads: 3 });
        expect(await store.breakdown({ country: 'GB' }, 'status', 5)).toEqual({
          total: 3,
          buckets: [
            { key: 'active', ads: 2 },
            { key: 'inactive', ads: 1 },
          ],
        });
      });
    });

    describe('single ads', () => {
      it('returns an ad with media and the summaries of who runs it', async () => {
        const ad = await store.getAd('ad_07');
        expect(ad).toEqual(
          expect.objectContaining({
            id: 'ad_07',
            landing_domain: 'www.lucky-bet.co.uk',
            advertiser: { id: 'adv_bet', name: 'Lucky Bet Group', platforms: ['facebook', 'tiktok'] },
            webmaster: { id: 'wm_alpha', name: 'Alpha Affiliates' },
            app_id: 'app_spin',
          }),
        );
        expect((await store.getAd('ad_01'))?.webmaster).toBeNull();
        expect(await store.getAd('nope')).toBeNull();
      });
    });

    describe('trends', () => {
      const window = { from: '2026-01-25', to: '2026-01-31' };
      const previous = { from: '2026-01-18', to: '2026-01-24' };

      it('geo: countries by ads active in the window, with the previous window', async () => {
        const result = await store.trends({ dimension: 'geo', filter: {}, window, previous, limit: 3 });
        // window: ad_01, 03, 05, 06, 07, 09 ; previous: ad_01, 03, 05
        expect(result.totalAds).toBe(6);
        expect(result.rows.map((r) => [r.key, r.ads, r.previousAds])).toEqual([
          ['US', 3, 2],
          ['GB', 2, 0],
          ['CA', 1, 1],
        ]);
        expect(result.rows[1]?.detail).toEqual({ advertisers: 1, top_categories: ['gambling_and_betting', 'mobile_games'] });
      });

      it('filters by country, platform and category', async () => {
        const gb = await store.trends({ dimension: 'geo', filter: { country: 'GB' }, window, previous, limit: 10 });
        expect(gb.rows.map((r) => r.key)).toEqual(['GB']);
        const tiktok = await store.trends({
          dimension: 'advertisers/cards',
          filter: { platform: 'tiktok', category: 'gambling_and_betting' },
          window,
          previous,
          limit: 10,
        });
        expect(tiktok.totalAds).toBe(1);
        expect(tiktok.rows.map((r) => [r.key, r.ads])).toEqual([['adv_bet', 1]]);
      });

      it('advertiser cards carry name, platforms, active ads, creatives, countries and samples', async () => {
        const result = await store.trends({ dimension: 'advertisers/cards', filter: {}, window, previous, limit: 1 });
        expect(result.rows[0]).toEqual({
          key: 'adv_acme',
          label: 'Acme Shop Ltd',
          ads: 2,
          previousAds: 2,
          detail: {
            name: 'Acme Shop Ltd',
            platforms: ['facebook'],
            active_ads: 2,
            creatives: 2,
            top_countries: ['US', 'CA'],
            sample_ad_ids: ['ad_03', 'ad_01'],
          },
        });
      });

      it('webmasters, apps and scaling creatives', async () => {
        const webmasters = await store.trends({ dimension: 'webmasters', filter: {}, window, previous, limit: 10 });
        expect(webmasters.rows.map((r) => [r.key, r.ads, r.previousAds, r.detail])).toEqual([
          ['wm_alpha', 3, 1, { dominant_country: 'GB', advertisers: 2 }],
          ['wm_beta', 1, 0, { dominant_country: 'US', advertisers: 1 }],
        ]);
        const apps = await store.trends({ dimension: 'apps', filter: {}, window, previous, limit: 10 });
        expect(apps.rows).toEqual([
          {
            key: 'app_spin',
            label: 'Spin Royale',
            ads: 2,
            previousAds: 0,
            detail: { store: 'google_play', bundle_id: 'com.spin.royale', advertisers: 1 },
          },
        ]);
        const scaling = await store.trends({ dimension: 'scaling-creatives', filter: {}, window, previous, limit: 10 });
        expect(scaling.rows.map((r) => [r.key, r.ads, r.previousAds])).toEqual([
          ['cr_6', 2, 0],
          ['cr_9', 1, 0],
        ]);
        expect(scaling.rows[0]?.label).toBe('Spin to win');
        expect(scaling.rows[0]?.detail).toEqual({ creative_format: 'video', advertiser_id: 'adv_bet' });
      });

      it('timeline: one row per day with new and active ads', async () => {
        const result = await store.trends({
          dimension: 'timeline',
          filter: {},
          window: { from: '2026-01-05', to: '2026-01-07' },
          previous: { from: '2026-01-02', to: '2026-01-04' },
          limit: 50,
        });
        expect(result.rows.map((r) => [r.key, r.ads, r.previousAds, r.detail])).toEqual([
          ['2026-01-05', 2, 1, { date: '2026-01-05', new_ads: 1, active_ads: 2 }],
          ['2026-01-06', 2, 1, { date: '2026-01-06', new_ads: 0, active_ads: 2 }],
          ['2026-01-07', 1, 1, { date: '2026-01-07', new_ads: 0, active_ads: 1 }],
        ]);
      });
    });

    describe('advertisers', () => {
      it('autocompletes by name prefix and by word prefix', async () => {
        expect((await store.searchAdvertisers({ q: 'acm', limit: 10 })).map((a) => a.id)).toEqual(['adv_acme']);
        expect((await store.searchAdvertisers({ q: 'shop', limit: 10 })).map((a) => a.id)).toEqual(['adv_acme']);
        expect((await store.searchAdvertisers({ q: 'bet group', limit: 10 })).map((a) => a.id)).toEqual(['adv_bet']);
        expect(await store.searchAdvertisers({ q: 'hop', limit: 10 })).toEqual([]);
        expect((await store.searchAdvertisers({ limit: 2 })).map((a) => [a.id, a.ads_total])).toEqual([
          ['adv_acme', 4],
          ['adv_bet', 3],
        ]);
      });

      it('returns the merged record across both platforms', async () => {
        expect(await store.getAdvertiser('adv_bet')).toEqual({
          id: 'adv_bet',
          name: 'Lucky Bet Group',
          platforms: ['facebook', 'tiktok'],
          ads_total: 3,
          active_ads: 2,
          platform_accounts: [
            { platform: 'facebook', account_id: 'fb-bet' },
            { platform: 'tiktok', account_id: 'tt-bet' },
          ],
          creatives: 2,
          webmasters: 2,
          countries: [
            { country: 'GB', ads: 3, share: 1 },
            { country: 'IE', ads: 1, share: 1 / 3 },
          ],
          categories: ['gambling_and_betting', 'mobile_games'],
          landing_domains: ['lucky-bet.co.uk'],
          first_seen_date: '2026-01-08',
          last_seen_date: '2026-01-31',
        });
        expect(await store.getAdvertiser('nope')).toBeNull();
      });

      it('reports activity per day', async () => {
        const days = await store.advertiserActivity('adv_bet', { from: '2026-01-24', to: '2026-01-26' });
        expect(days).toEqual([
          { date: '2026-01-24', new_ads: 0, active_ads: 0 },
          { date: '2026-01-25', new_ads: 1, active_ads: 1 },
          { date: '2026-01-26', new_ads: 1, active_ads: 2 },
        ]);
        expect(await store.advertiserActivity('nope', { from: '2026-01-24', to: '2026-01-26' })).toBeNull();
      });
    });

    describe('webmasters', () => {
      it('lists volume per country, dominant country and relevance, pages by volume', async () => {
        const first = await store.searchWebmasters({ limit: 1 });
        expect(first.rows[0]).toEqual({
          id: 'wm_alpha',
          name: 'Alpha Affiliates',
          ads_total: 3,
          active_ads: 3,
          advertisers: 2,
          countries: [
            { country: 'GB', ads: 2, share: 2 / 3 },
            { country: 'IE', ads: 1, share: 1 / 3 },
            { country: 'US', ads: 1, share: 1 / 3 },
          ],
          dominant_country: 'GB',
          relevance: 2 / 3,
        });
        expect(first.hasMore).toBe(true);
        const second = await store.searchWebmasters({ limit: 1, ...(first.lastKey ? { after: first.lastKey } : {}) });
        expect(second.rows.map((w) => w.id)).toEqual(['wm_beta']);
        expect(second.hasMore).toBe(false);
        expect((await store.searchWebmasters({ q: 'partners', limit: 5 })).rows.map((w) => w.id)).toEqual(['wm_beta']);
      });

      it('returns one webmaster with categories and domains, and its advertisers', async () => {
        const wm = await store.getWebmaster('wm_beta');
        expect(wm?.categories).toEqual([
          { category: 'finance_and_banking', ads: 1, share: 0.5 },
          { category: 'gambling_and_betting', ads: 1, share: 0.5 },
        ]);
        expect(wm?.landing_domains).toEqual(['fastloan.com', 'lucky-bet.co.uk']);
        const advertisers = await store.webmasterAdvertisers('wm_alpha', { limit: 10 });
        expect(advertisers?.rows.map((a) => a.id)).toEqual(['adv_acme', 'adv_bet']);
        const paged = await store.webmasterAdvertisers('wm_alpha', { limit: 1 });
        expect(paged?.hasMore).toBe(true);
        const rest = await store.webmasterAdvertisers('wm_alpha', { limit: 1, ...(paged?.lastKey ? { after: paged.lastKey } : {}) });
        expect(rest?.rows.map((a) => a.id)).toEqual(['adv_bet']);
        expect(await store.webmasterAdvertisers('nope', { limit: 10 })).toBeNull();
        expect(await store.getWebmaster('nope')).toBeNull();
      });
    });

    describe('creatives, domains and apps', () => {
      it('lists unique creatives by how many ads use them', async () => {
        const page = await store.searchCreatives({ limit: 2 });
        expect(page.rows.map((c) => [c.id, c.ads_count])).toEqual([
          ['cr_1', 2],
          ['cr_2', 2],
        ]);
        expect((await store.searchCreatives({ q: 'spin', limit: 5 })).rows.map((c) => c.id)).toEqual(['cr_6']);
        const creative = await store.getCreative('cr_6');
        expect(creative).toEqual(
          expect.objectContaining({
            id: 'cr_6',
            title: 'Spin to win',
            creative_format: 'video',
            ads_count: 2,
            advertisers_count: 1,
            platforms: ['facebook', 'tiktok'],
            countries: ['GB', 'IE'],
            advertiser_ids: ['adv_bet'],
            sample_ad_ids: ['ad_07', 'ad_06'],
          }),
        );
        expect(await store.getCreative('nope')).toBeNull();
      });

      it('reads the media held on some ads and on the first ad of some creatives, in one call', async () => {
        const held = await store.heldMedia({ adIds: ['ad_09', 'nope'], creativeIds: ['cr_6', 'cr_nope'] });
        expect(held.map((m) => m.url).sort()).toEqual(['https://cdn.test/1.jpg', 'https://cdn.test/9a.jpg', 'https://cdn.test/9b.jpg']);
        expect(held.find((m) => m.url === 'https://cdn.test/9a.jpg')).toEqual({ type: 'image', url: 'https://cdn.test/9a.jpg', width: 100, height: 100, duration_seconds: null });
        expect(await store.heldMedia({ adIds: [], creativeIds: [] })).toEqual([]);
      });

      it('reads many creative rows at once, in the order asked, leaving unknown ids out', async () => {
        const rows = await store.creativeRows(['cr_6', 'nope', 'cr_1']);
        expect(rows.map((r) => r.id)).toEqual(['cr_6', 'cr_1']);
        const [first] = (await store.searchCreatives({ q: 'spin', limit: 1 })).rows;
        expect(rows[0]).toEqual(first);
        expect(await store.creativeRows([])).toEqual([]);
      });

      it('groups landing domains under their registrable domain', async () => {
        const page = await store.searchDomains({ q: 'example', limit: 10 });
        expect(page.rows).toEqual([{ domain: 'example.com', ads_total: 4, active_ads: 2, advertisers: 1 }]);
        const domain = await store.getDomain('example.com');
        expect(domain?.subdomains).toEqual([
          { host: 'a.b.example.com', ads: 1 },
          { host: 'example.com', ads: 1 },
          { host: 'promo.example.com', ads: 1 },
          { host: 'shop.example.com', ads: 1 },
        ]);
        expect(domain?.top_advertisers).toEqual([{ id: 'adv_acme', name: 'Acme Shop Ltd', ads: 4 }]);
        expect((await store.searchDomains({ q: 'bet', limit: 10 })).rows.map((d) => d.domain)).toEqual(['lucky-bet.co.uk']);
        expect(await store.getDomain('nope.com')).toBeNull();
      });

      it('lists promoted apps', async () => {
        const page = await store.searchApps({ q: 'royale', limit: 10 });
        expect(page.rows).toEqual([
          { id: 'app_spin', name: 'Spin Royale', store: 'google_play', bundle_id: 'com.spin.royale', ads_total: 2, advertisers: 1 },
        ]);
        expect((await store.searchApps({ q: 'com spin', limit: 10 })).rows).toHaveLength(1);
        const app = await store.getApp('app_spin');
        expect(app?.advertiser_list).toEqual([{ id: 'adv_bet', name: 'Lucky Bet Group', ads: 2 }]);
        expect(app?.countries).toEqual([
          { country: 'GB', ads: 2, share: 1 },
          { country: 'IE', ads: 1, share: 0.5 },
        ]);
        expect(await store.getApp('nope')).toBeNull();
      });
    });

    describe('destinations, entity breakdowns and coverage', () => {
      const of = (pick: (ad: AdRecord) => string | null) => {
        const counts = new Map<string, number>();
        for (const ad of FIXTURE_RECORDS) {
          const key = pick(ad);
          if (key !== null) counts.set(key, (counts.get(key) ?? 0) + 1);
        }
        return [...counts].map(([key, ads]) => ({ key, ads })).sort((x, y) => y.ads - x.ads || compare(x.key, y.key));
      };

      it('filters on destination_type, which every ad carries', async () => {
        for (const type of DESTINATION_TYPES) {
          const expected = FIXTURE_RECORDS.filter((ad) => ad.destination_type === type).map((ad) => ad.id).sort();
          expect(await search({ destinationType: type })).toEqual(expected);
          expect(await store.countAds({ destinationType: type }, 100)).toEqual({ total: expected.length, estimated: false });
        }
        expect(await search({ destinationType: 'online_shop', platforms: ['facebook'] })).toEqual(
          FIXTURE_RECORDS.filter((ad) => ad.destination_type === 'online_shop' && ad.platform_name === 'facebook').map((ad) => ad.id).sort(),
        );
        const page = await store.searchAds({ filter: {}, sort: 'date', order: 'desc', limit: 100 });
        for (const ad of page.rows) expect(ad.destination_type).toBe(FIXTURE_RECORDS.find((r) => r.id === ad.id)?.destination_type);
      });

      it('breaks down by destination type, advertiser and webmaster (names as labels, ads without a webmaster left out)', async () => {
        expect((await store.breakdown({}, 'destination_type', 10)).buckets).toEqual(of((ad) => ad.destination_type));
        const byAdvertiser = await store.breakdown({}, 'advertiser', 2);
        expect(byAdvertiser.total).toBe(FIXTURE_RECORDS.length);
        expect(byAdvertiser.buckets.map(({ key, ads }) => ({ key, ads }))).toEqual(of((ad) => ad.advertiser_id).slice(0, 2));
        for (const bucket of byAdvertiser.buckets) expect(bucket.label).toBe((await store.getAdvertiser(bucket.key))?.name);
        const byWebmaster = await store.breakdown({}, 'webmaster', 10);
        expect(byWebmaster.buckets.map(({ key, ads }) => ({ key, ads }))).toEqual(of((ad) => ad.webmaster_id));
        for (const bucket of byWebmaster.buckets) expect(bucket.label).toBe((await store.getWebmaster(bucket.key))?.name);
      });

      it('reports coverage: ads and the newest sighting per platform and country', async () => {
        const expected = new Map<string, { platform: string; country: string; ads: number; newestSighting: string }>();
        for (const ad of FIXTURE_RECORDS) {
          for (const country of ad.countries) {
            const key = `${ad.platform_name} ${country}`;
            const row = expected.get(key) ?? { platform: ad.platform_name, country, ads: 0, newestSighting: '' };
            row.ads++;
            if (ad.last_seen_date > row.newestSighting) row.newestSighting = ad.last_seen_date;
            expected.set(key, row);
          }
        }
        const ordered = [...expected.values()].sort((x, y) => compare(x.platform, y.platform) || y.ads - x.ads || compare(x.country, y.country));
        expect((await store.catalog()).coverage).toEqual(ordered);
      });
    });

    it('catalog lists the values present and the data window', async () => {
      const catalog = await store.catalog();
      expect(catalog.countries.slice(0, 3)).toEqual(['US', 'GB', 'CA']);
      expect(catalog.categories[0]).toBe('ecommerce_and_retail');
      expect(catalog.languages).toEqual(['en', 'de', 'fr']);
      expect(catalog.firstSeenDate).toBe('2026-01-01');
      expect(catalog.lastSeenDate).toBe('2026-01-31');
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
