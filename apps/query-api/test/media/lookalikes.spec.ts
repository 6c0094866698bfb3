/**
 * Look-alikes on the demo data: the demo generator makes families of recuts (crop, colour, wording) of one design,
 * rendered by the seed's own path (MediaIngest), stored in SQLite; the services answer `similar_to`. The families are
 * the truth: every member of a family of two or more should find the others (recall at 10), and nothing else should
 * come (precision at 10).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdsPage, CreativeList, WebmasterList } from '@adintel/contracts';
import { AdChangesService } from '../../src/ads/ad-changes.service';
import { SimilarAdsService } from '../../src/ads/similar-ads.service';
import { CreativesService } from '../../src/creatives/creatives.service';
import { generateDemoAds } from '../../src/ingest/demo-generator';
import { parseAdLine } from '../../src/ingest/ingest';
import { parseDemoMediaUrl } from '../../src/media/demo-creative';
import { FilesystemMediaStore } from '../../src/media/filesystem-media-store';
import { LookalikeIndex, NO_MADE_HASHES } from '../../src/media/lookalike-index.service';
import { PictureCatalogue } from '../../src/media/picture-catalogue';
import { MediaIngest } from '../../src/media/media-ingest';
import { MediaLibrary } from '../../src/media/media-library';
import { CursorCodec } from '../../src/paging/cursor-codec';
import { DataWindowService } from '../../src/paging/data-window.service';
import { ListPager } from '../../src/paging/list-pager';
import type { AdRecord } from '../../src/store/ad-store.port';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { SqliteWriter } from '../../src/store/sqlite/sqlite-writer';
import { WebmastersService } from '../../src/webmasters/webmasters.service';
import { AdsService } from '../../src/ads/ads.service';

const ADS = 2_500;
const CONFIG = { PUBLIC_BASE_URL: 'http://media.test' };

describe('look-alikes on the demo families', () => {
  let dir: string;
  let store: SqliteStore;
  let creatives: CreativesService;
  let ads: AdsService;
  let webmasters: WebmastersService;
  /** creative id -> its family (the root of its design) */
  const familyOf = new Map<string, string>();
  let records: AdRecord[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'query-lookalikes-'));
    const lines = [...generateDemoAds(ADS)];
    records = lines.map((line, i) => {
      const parsed = parseAdLine(JSON.stringify(line), i + 1);
      if ('rejected' in parsed) throw new Error(parsed.rejected.reason);
      return parsed.record;
    });
    const files = new FilesystemMediaStore(join(dir, 'media'));
    const ingest = new MediaIngest(new MediaLibrary(files), null);
    const resolved = await ingest.resolve(records);
    expect(resolved.rejected).toEqual([]);
    records = resolved.records;
    for (const record of records) {
      const spec = record.media[0] ? parseDemoMediaUrl(record.media[0].url) : null;
      if (spec) familyOf.set(record.creative_id, spec.root);
    }
    const file = join(dir, 'ads.sqlite');
    const writer = new SqliteWriter(file);
    await writer.write(records);
    await writer.finish();
    await writer.close();
    store = new SqliteStore({ file, workers: 0 });
    const pager = new ListPager(new CursorCodec('x'.repeat(32)), new DataWindowService(store));
    // The pictures are rendered inline here (none pending): picture-worker.process.spec.ts covers those made later.
    const pictures = new PictureCatalogue(files);
    creatives = new CreativesService(store, pager, CONFIG, new LookalikeIndex(store, NO_MADE_HASHES), pictures);
    ads = new AdsService(
      store,
      pager,
      CONFIG,
      new SimilarAdsService(store, pager, creatives),
      pictures,
      new AdChangesService(store, pager, { FEED_RETENTION_DAYS: 30 }),
    );
    webmasters = new WebmastersService(store, pager);
  }, 600_000);

  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every creative of a family finds the others (recall@10 >= 0.9) and little else (precision@10 >= 0.9)', async () => {
    const members = new Map<string, string[]>();
    for (const [creative, root] of familyOf) members.set(root, [...(members.get(root) ?? []), creative]);
    let recallSum = 0;
    let recallQueries = 0;
    let precisionSum = 0;
    let precisionQueries = 0;
    for (const [creative, root] of familyOf) {
      const page = CreativeList.parse(await creatives.search({ similar_to: creative, limit: 10 }));
      const found = page.data.map((row) => row.id);
      const relatives = (members.get(root) ?? []).filter((id) => id !== creative);
      if (relatives.length) {
        recallSum += found.filter((id) => relatives.includes(id)).length / Math.min(10, relatives.length);
        recallQueries++;
      }
      if (found.length) {
        precisionSum += found.filter((id) => familyOf.get(id) === root).length / found.length;
        precisionQueries++;
      }
      for (const row of page.data) {
        expect(row.match).toEqual(['near_duplicate']);
        expect(row.similarity).toBeGreaterThan(0);
      }
      expect(page.data.map((r) => r.similarity)).toEqual([...page.data.map((r) => r.similarity)].sort((a, b) => (b ?? 0) - (a ?? 0)));
    }
    const recall = recallSum / recallQueries;
    const precision = precisionSum / precisionQueries;
    process.stdout.write(
      `look-alikes: ${familyOf.size} creatives, ${recallQueries} in families of 2+; recall@10 ${recall.toFixed(3)}, precision@10 ${precision.toFixed(3)}\n`,
    );
    expect(recallQueries).toBeGreaterThan(50);
    expect(recall).toBeGreaterThanOrEqual(0.9);
    expect(precision).toBeGreaterThanOrEqual(0.9);
  }, 120_000);

  it('search_ads(similar_to) lists every ad of the same creative first, then near copies, paged by cursor without overlap', async () => {
    const byCreative = new Map<string, string[]>();
    for (const r of records) byCreative.set(r.creative_id, [...(byCreative.get(r.creative_id) ?? []), r.id]);
    // A creative with several ads whose family has other members.
    const [creative, own] = [...byCreative].find(([id, list]) => list.length >= 3 && [...familyOf].some(([other, root]) => other !== id && root === familyOf.get(id))) ?? [];
    if (!creative || !own) throw new Error('the demo data has no such creative');
    const seen: string[] = [];
    let cursor: string | undefined;
    const rows: AdsPage['data'] = [];
    do {
      const page = AdsPage.parse(await ads.search({ similar_to: own[0] as string, limit: 2, sort_by: 'date', sort_order: 'desc', ...(cursor ? { cursor } : {}) }));
      rows.push(...page.data);
      seen.push(...page.data.map((r) => r.id));
      cursor = page.pagination.next_cursor ?? undefined;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, own.length).sort()).toEqual([...own].sort());
    expect(rows.slice(0, own.length).every((r) => r.similarity === 1 && r.match?.[0] === 'same_creative')).toBe(true);
    const rest = rows.slice(own.length);
    expect(rest.length).toBeGreaterThan(0);
    expect(rest.every((r) => r.match?.[0] === 'near_duplicate' && familyOf.get(r.creative_id) === familyOf.get(creative))).toBe(true);
    // Combined with another filter: only that platform's ads, still same creative first.
    const platform = records.find((r) => r.id === own[0])?.platform_name ?? 'facebook';
    const filtered = AdsPage.parse(await ads.search({ similar_to: own[0] as string, platforms: [platform], limit: 50, sort_by: 'date', sort_order: 'desc' }));
    expect(filtered.data.every((r) => r.platform_name === platform)).toBe(true);
    expect(filtered.pagination.total).toBe(filtered.data.length);
  });

  it('search_webmasters(similar_to) ranks operators by profile similarity and says what they share', async () => {
    const list = WebmasterList.parse(await webmasters.search({ limit: 1 }));
    const id = list.data[0]?.id as string;
    const similar = WebmasterList.parse(await webmasters.search({ similar_to: id, limit: 5 }));
    expect(similar.data.length).toBeGreaterThan(0);
    const scores = similar.data.map((r) => r.similarity ?? -1);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(similar.data.every((r) => r.id !== id && (r.similarity ?? 0) >= 0.5 && (r.similarity ?? 0) <= 1)).toBe(true);
    expect(similar.data.some((r) => (r.match ?? []).length > 0)).toBe(true);
    if (similar.pagination.next_cursor) {
      const next = WebmasterList.parse(await webmasters.search({ similar_to: id, limit: 5, cursor: similar.pagination.next_cursor }));
      expect(next.data.filter((r) => similar.data.some((s) => s.id === r.id))).toEqual([]);
    }
  });

  it('an unknown id is not_found, and get_creative gives service URLs for its pictures', async () => {
    await expect(creatives.search({ similar_to: 'cr_nope', limit: 10 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(ads.search({ similar_to: 'ad_nope', limit: 10, sort_by: 'date', sort_order: 'desc' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(webmasters.search({ similar_to: 'wm_nope', limit: 10 })).rejects.toMatchObject({ code: 'not_found' });
    const creative = await creatives.get([...familyOf.keys()][0] as string);
    expect(creative.media[0]).toMatchObject({
      url: `http://media.test/api/v1/creo/${creative.id}/media/0`,
      thumbnail_url: `http://media.test/api/v1/creo/${creative.id}/media/0/thumbnail`,
    });
    expect(creative.media[0]?.bytes).toBeGreaterThan(1_000);
  });
});
