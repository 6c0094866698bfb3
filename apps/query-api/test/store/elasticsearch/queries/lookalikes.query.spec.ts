/**
 * The look-alike index's read from Elasticsearch, checked by output (no Elasticsearch server runs on these machines):
 * the request each page sends, and the paging through the mock transport until a short page.
 */
import { Client } from '@elastic/elasticsearch';
import Mock from '@elastic/elasticsearch-mock';
import { CREATIVE_HASH_PAGE, creativeHashesRequest, creativeRowsRequest, heldAdMediaRequest, heldCreativeMediaRequest } from '../../../../src/store/elasticsearch/queries/lookalikes.query';
import { ElasticsearchAdStore } from '../../../../src/store/elasticsearch/elasticsearch-ad-store';

describe('creative picture hashes on Elasticsearch', () => {
  it('pages the creatives alias in id order, reading only the first picture hash', () => {
    expect(creativeHashesRequest('adi-creatives', null)).toEqual({
      index: 'adi-creatives',
      ignore_unavailable: true,
      allow_no_indices: true,
      size: CREATIVE_HASH_PAGE,
      sort: [{ id: 'asc' }],
      _source: ['id', 'record.media.stored.phash'],
      query: { match_all: {} },
      track_total_hits: false,
    });
    expect(creativeHashesRequest('adi-creatives', 'cr_9')).toMatchObject({ search_after: ['cr_9'] });
  });

  it('walks pages until a short one, leaving out creatives without a stored picture', async () => {
    const mock = new Mock();
    const client = new Client({ node: 'http://es.test:9200', Connection: mock.getConnection(), maxRetries: 0 });
    const bodies: { search_after?: string[] }[] = [];
    const hit = (id: string, phash?: string) => ({ _index: 'i', _id: id, _source: { id, record: { media: phash ? [{ stored: { phash } }] : [] } } });
    mock.add({ method: 'POST', path: '/adi-creatives/_search' }, (params) => {
      const body = params.body as { search_after?: string[] };
      bodies.push(body);
      const hits = body.search_after
        ? [hit('cr_z', 'f'.repeat(64))]
        : Array.from({ length: CREATIVE_HASH_PAGE }, (_, i) => hit(`cr_${String(i).padStart(5, '0')}`, i === 1 ? undefined : '0'.repeat(64)));
      return { hits: { hits } };
    });
    const hashes = await new ElasticsearchAdStore(client, 'adi').creativePictureHashes();
    expect(hashes).toHaveLength(CREATIVE_HASH_PAGE);
    expect(hashes.at(-1)).toEqual({ id: 'cr_z', phash: 'f'.repeat(64) });
    expect(hashes.some((h) => h.id === 'cr_00001')).toBe(false);
    expect(bodies.map((b) => b.search_after ?? null)).toEqual([null, [`cr_${String(CREATIVE_HASH_PAGE - 1).padStart(5, '0')}`]]);
  });

  it('reads many creative rows in one search by id, only the fields a row shows, in the order asked', async () => {
    expect(creativeRowsRequest('adi-creatives', ['cr_2', 'cr_1'])).toEqual({
      index: 'adi-creatives',
      ignore_unavailable: true,
      allow_no_indices: true,
      size: 2,
      query: { ids: { values: ['cr_2', 'cr_1'] } },
      _source: [
        'record.id',
        'record.title',
        'record.creative_format',
        'record.ads_count',
        'record.advertisers_count',
        'record.platforms',
        'record.first_seen_date',
        'record.last_seen_date',
      ],
      track_total_hits: false,
    });
    const mock = new Mock();
    const client = new Client({ node: 'http://es.test:9200', Connection: mock.getConnection(), maxRetries: 0 });
    const row = (id: string) => ({
      id,
      title: `t ${id}`,
      creative_format: 'image',
      ads_count: 1,
      advertisers_count: 1,
      platforms: ['facebook'],
      first_seen_date: '2026-01-01',
      last_seen_date: '2026-01-02',
    });
    const requests: unknown[] = [];
    mock.add({ method: 'POST', path: '/adi-creatives/_search' }, (params) => {
      requests.push(params.body);
      return { hits: { hits: [row('cr_1'), row('cr_2')].map((record) => ({ _index: 'i', _id: record.id, _source: { record } })) } };
    });
    const store = new ElasticsearchAdStore(client, 'adi');
    expect((await store.creativeRows(['cr_2', 'cr_x', 'cr_1'])).map((r) => r.id)).toEqual(['cr_2', 'cr_1']);
    expect(await store.creativeRows([])).toEqual([]);
    expect(requests).toHaveLength(1);
  });

  it('reads the media held on ads (every monthly copy) and on creative records, only the media, in two searches', async () => {
    expect(heldAdMediaRequest('adi-ads', ['ad_1', 'ad_2'])).toEqual({
      index: 'adi-ads',
      ignore_unavailable: true,
      allow_no_indices: true,
      size: 4,
      query: { ids: { values: ['ad_1', 'ad_2'] } },
      _source: ['media'],
      track_total_hits: false,
    });
    expect(heldCreativeMediaRequest('adi-creatives', ['cr_1'])).toEqual({
      index: 'adi-creatives',
      ignore_unavailable: true,
      allow_no_indices: true,
      size: 1,
      query: { ids: { values: ['cr_1'] } },
      _source: ['record.media'],
      track_total_hits: false,
    });
    const mock = new Mock();
    const client = new Client({ node: 'http://es.test:9200', Connection: mock.getConnection(), maxRetries: 0 });
    const entry = (url: string) => ({ type: 'image', url, width: 1, height: 1, duration_seconds: null });
    mock.add({ method: 'POST', path: '/adi-ads/_search' }, () => ({ hits: { hits: [{ _index: 'adi-ads-2026.01', _id: 'ad_1', _source: { media: [entry('a')] } }] } }));
    mock.add({ method: 'POST', path: '/adi-creatives/_search' }, () => ({ hits: { hits: [{ _index: 'i', _id: 'cr_1', _source: { record: { media: [entry('c')] } } }] } }));
    const store = new ElasticsearchAdStore(client, 'adi');
    expect((await store.heldMedia({ adIds: ['ad_1'], creativeIds: ['cr_1'] })).map((m) => m.url)).toEqual(['a', 'c']);
    expect(await store.heldMedia({ adIds: [], creativeIds: [] })).toEqual([]);
    // A batch of 2,500 lines reads its ads in requests of at most 1,000 ids (each within max_result_window).
    const sizes: number[] = [];
    mock.clearAll();
    mock.add({ method: 'POST', path: '/adi-ads/_search' }, (params) => {
      sizes.push((params.body as { query: { ids: { values: string[] } } }).query.ids.values.length);
      return { hits: { hits: [] } };
    });
    await store.heldMedia({ adIds: Array.from({ length: 2_500 }, (_, i) => `ad_${i}`), creativeIds: [] });
    expect(sizes.sort((a, b) => a - b)).toEqual([500, 1_000, 1_000]);
  });
});
