import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdsBreakdown, OVERVIEW_SECTIONS } from '@adintel/contracts';
import { AdsService } from '../../src/ads/ads.service';
import type { AdChangesService } from '../../src/ads/ad-changes.service';
import type { SimilarAdsService } from '../../src/ads/similar-ads.service';
import type { PictureCatalogue } from '../../src/media/picture-catalogue';
import type { ListPager } from '../../src/paging/list-pager';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../../src/store/sqlite/sqlite-writer';
import { FIXTURE_RECORDS } from '../store/store-fixture';

/** get_ads_breakdown field=overview on a real SQLite store of the contract fixture (breakdowns do not page). */
describe('the breakdown overview', () => {
  const dir = mkdtempSync(join(tmpdir(), 'query-overview-'));
  let store: SqliteStore;
  let service: AdsService;
  beforeAll(async () => {
    const file = join(dir, 'ads.sqlite');
    const writer = new SqliteWriter(file);
    await writer.write(FIXTURE_RECORDS);
    await writer.finish();
    await writer.close();
    store = new SqliteStore({ file, workers: 0 });
    // Breakdowns neither page, link media nor look for look-alikes: those collaborators are not reached.
    service = new AdsService(store, {} as ListPager, { PUBLIC_BASE_URL: 'http://localhost:3000' }, {} as SimilarAdsService, {} as PictureCatalogue, {} as AdChangesService);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const overview = (limit: number, filters: Record<string, unknown> = {}) =>
    service.breakdown({ field: 'overview', limit, ...filters } as Parameters<AdsService['breakdown']>[0]);

  it('gives every section at once with the total, sharing `limit` rows among them, each marked complete or truncated', async () => {
    const result = await overview(20);
    expect(AdsBreakdown.parse(result)).toEqual(result);
    expect(result).toMatchObject({ field: 'overview', total: FIXTURE_RECORDS.length, total_estimated: false, data: [] });
    const sections = result.sections ?? [];
    expect(sections.map((s) => s.field)).toEqual([...OVERVIEW_SECTIONS]);
    // 20 rows over 8 sections: the first four take 3, the others 2.
    for (const [i, section] of sections.entries()) {
      const single = await service.breakdown({ field: section.field, limit: 100 } as Parameters<AdsService['breakdown']>[0]);
      const share = i < 4 ? 3 : 2;
      expect(section.data).toEqual(single.data.slice(0, share));
      expect(section.complete).toBe(single.data.length <= share);
    }
    expect(sections.find((s) => s.field === 'status')?.complete).toBe(true);
    expect(sections.find((s) => s.field === 'country')?.complete).toBe(false);
    const rows = sections.reduce((n, s) => n + s.data.length, 0);
    expect(rows).toBeLessThanOrEqual(20);
  });

  it('labels advertisers and webmasters with their names, and takes the search_ads filters', async () => {
    const result = await overview(16, { country: 'GB' });
    expect(result.total).toBe(FIXTURE_RECORDS.filter((ad) => ad.countries.includes('GB')).length);
    const advertisers = result.sections?.find((s) => s.field === 'advertiser')?.data ?? [];
    expect(advertisers[0]).toMatchObject({ key: 'adv_bet', label: 'Lucky Bet Group' });
  });

  it('gives every section one row at least when `limit` is below the number of sections (each is a scan, priced as one row)', async () => {
    const sections = (await overview(3)).sections ?? [];
    expect(sections.map((s) => s.data.length)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    expect(sections[7]?.complete).toBe(false);
  });
});
