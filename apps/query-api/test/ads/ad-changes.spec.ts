import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countAdsArgs, searchAdsArgs, ServiceError } from '@adintel/contracts';
import { AdChangesService } from '../../src/ads/ad-changes.service';
import { AdsService } from '../../src/ads/ads.service';
import type { SimilarAdsService } from '../../src/ads/similar-ads.service';
import type { PictureCatalogue } from '../../src/media/picture-catalogue';
import { CursorCodec } from '../../src/paging/cursor-codec';
import { DataWindowService } from '../../src/paging/data-window.service';
import { ListPager } from '../../src/paging/list-pager';
import { encodeWatermark } from '../../src/paging/watermark';
import type { AdRecord } from '../../src/store/ad-store.port';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../../src/store/sqlite/sqlite-writer';
import { FIXTURE_RECORDS } from '../store/store-fixture';

/** search_ads and count_ads with changed_since, through the services, on a real SQLite store fed live. */
describe('search_ads changed_since (AdsService on SQLite)', () => {
  let dir: string;
  let writer: SqliteWriter;
  let store: SqliteStore;
  let dataWindow: DataWindowService;
  let ads: AdsService;
  const search = (args: object) => ads.search(searchAdsArgs().parse(args));
  const count = (args: object) => ads.count(countAdsArgs().parse(args));
  const failure = async (run: Promise<unknown>) => {
    const error = await run.then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    return (error as ServiceError).payload;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'query-feed-svc-'));
    const file = join(dir, 'ads.sqlite');
    writer = new SqliteWriter(file);
    await writer.write(FIXTURE_RECORDS);
    await writer.finish();
    store = new SqliteStore({ file, workers: 0 });
    dataWindow = new DataWindowService(store);
    const pager = new ListPager(new CursorCodec('x'.repeat(32)), dataWindow);
    const config = { PUBLIC_BASE_URL: 'http://localhost:3000', FEED_RETENTION_DAYS: 30 };
    ads = new AdsService(store, pager, config, {} as SimilarAdsService, {} as PictureCatalogue, new AdChangesService(store, pager, config));
  });
  afterAll(async () => {
    await store?.close();
    await writer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers with a watermark; the feed since it lists what changed, pages by cursor, and its own watermark leads to nothing', async () => {
    const baseline = await search({ country: 'US', limit: 5 });
    const watermark = baseline.pagination.watermark as string;
    expect(watermark).toMatch(/^w1\./);
    const base = FIXTURE_RECORDS[1] as AdRecord;
    await writer.apply([
      { ...base, id: 'ad_feed_1', countries: ['US'] },
      { ...base, id: 'ad_feed_2', countries: ['US'] },
      { ...base, id: 'ad_feed_3', countries: ['BR'] },
    ]);
    dataWindow.invalidate();
    expect(await count({ country: 'US', changed_since: watermark })).toMatchObject({ total: 2, total_estimated: false, cost_of_next_page: 2 });
    const first = await search({ country: 'US', changed_since: watermark, limit: 1 });
    expect(first.data.map((ad) => [ad.id, ad.change])).toEqual([['ad_feed_1', 'new']]);
    expect(first.data[0]?.changed_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(first.pagination).toMatchObject({ has_more: true, total: 2 });
    const second = await search({ country: 'US', changed_since: watermark, limit: 1, cursor: first.pagination.next_cursor });
    expect(second.data.map((ad) => [ad.id, ad.change])).toEqual([['ad_feed_2', 'new']]);
    // The total is the whole feed's on every page, as a plain search's is.
    expect(second.pagination).toMatchObject({ has_more: false, total: 2 });
    const again = await search({ country: 'US', changed_since: second.pagination.watermark });
    expect(again.data).toEqual([]);
    expect(again.pagination.watermark).toBe(second.pagination.watermark);
  });

  it('a malformed watermark is a 400 naming changed_since; a foreign one a 410 saying to re-baseline', async () => {
    for (const bad of ['nonsense', 'w1.!!!', `w1.${Buffer.from('{"a":1}').toString('base64url')}`]) {
      const payload = await failure(search({ changed_since: bad }));
      expect(payload).toMatchObject({ code: 'invalid_argument', errors: [{ field: 'changed_since' }] });
    }
    const foreign = await failure(search({ changed_since: encodeWatermark({ store: 'another-store', seq: 1 }) }));
    expect(foreign).toMatchObject({ code: 'gone', errors: [{ field: 'changed_since' }] });
    expect(foreign.message).toMatch(/re-baseline with a plain search_ads/);
    expect((await failure(count({ changed_since: encodeWatermark({ store: 'another-store', seq: 1 }) }))).code).toBe('gone');
  });
});
