/**
 * The live path's builders (classification of a batch, bulk actions, entity upserts, bulk outcomes, backoff),
 * tested by their output as pure functions: no Elasticsearch server can run on the build machines. The flow
 * that sends them is tested over the mock transport in elasticsearch-live-writer.spec.ts, and against a real
 * cluster by the equivalence check when ES_URL is set.
 */
import type { estypes } from '@elastic/elasticsearch';
import type { AdRecord } from '../../../../src/store/ad-store.port';
import { toAdDocument } from '../../../../src/store/elasticsearch/ad-document';
import { indexNames } from '../../../../src/store/elasticsearch/index-names';
import {
  backoffDelay,
  type BulkAction,
  bulkOperations,
  bulkRoundFrom,
  DEFAULT_BACKOFF,
} from '../../../../src/store/elasticsearch/queries/bulk.query';
import type { EntityDocument } from '../../../../src/store/elasticsearch/queries/entities.query';
import {
  adIndexActions,
  chunks,
  deleteActions,
  entityActions,
  planBatch,
  type StoredCopy,
  storedAdsRequest,
  storedCopiesFrom,
} from '../../../../src/store/elasticsearch/queries/live.query';
import { rollupPageRequest } from '../../../../src/store/elasticsearch/queries/rollups.query';
import { FIXTURE_RECORDS } from '../../store-fixture';

const names = indexNames('adi');
const record = (id: string): AdRecord => {
  const found = FIXTURE_RECORDS.find((r) => r.id === id);
  if (!found) throw new Error(`no fixture ad ${id}`);
  return found;
};
const storedAs = (r: AdRecord, index = names.adsIndexFor(r.first_seen_date)): StoredCopy => ({
  index,
  doc: JSON.parse(JSON.stringify(toAdDocument(r))) as StoredCopy['doc'],
});
const store = (...copies: StoredCopy[]) => {
  const map = new Map<string, StoredCopy[]>();
  for (const copy of copies) map.set(copy.doc.id, [...(map.get(copy.doc.id) ?? []), copy]);
  return map;
};

describe('planBatch: a batch against what the store holds', () => {
  it('new ids are added, indexed into the month of their first_seen_date, and touch their entities', () => {
    const plan = planBatch(names, [record('ad_06'), record('ad_09')], new Map());
    expect(Object.fromEntries(plan.outcomes)).toEqual({ ad_06: ['added'], ad_09: ['added'] });
    expect(plan.toIndex.map((c) => [c.index, c.doc.id])).toEqual([
      ['adi-ads-2026.01', 'ad_06'],
      ['adi-ads-2026.01', 'ad_09'],
    ]);
    expect(plan.stale).toEqual([]);
    expect(plan.touched).toEqual({
      advertisers: ['adv_bet', 'adv_loan'],
      webmasters: ['wm_alpha', 'wm_beta'],
      creatives: ['cr_6', 'cr_9'],
      domains: ['fastloan.com', 'lucky-bet.co.uk'],
      apps: ['app_spin'],
    });
  });

  it('an identical record is unchanged and not indexed; its entities are still recomputed (repairs a crash)', () => {
    const plan = planBatch(names, [record('ad_01')], store(storedAs(record('ad_01'))));
    expect(plan.outcomes.get('ad_01')).toEqual(['unchanged']);
    expect(plan.toIndex).toEqual([]);
    expect(plan.touched.advertisers).toEqual(['adv_acme']);
  });

  it('a re-sighting replaces the stored ad and touches the entities of both versions', () => {
    const old = record('ad_04');
    const moved = { ...old, advertiser_id: 'adv_acme', last_seen_date: '2026-01-20', status_today: 'active' as const };
    const plan = planBatch(names, [moved], store(storedAs(old)));
    expect(plan.outcomes.get('ad_04')).toEqual(['replaced']);
    expect(plan.toIndex).toEqual([{ index: 'adi-ads-2026.01', doc: expect.objectContaining({ id: 'ad_04', advertiser_id: 'adv_acme' }) }]);
    expect(plan.touched.advertisers).toEqual(['adv_acme', 'adv_other']);
    expect(plan.stale).toEqual([]);
  });

  it('a re-sighting whose first_seen_date moved month is indexed in the new month and its old copy is stale', () => {
    const old = record('ad_02');
    const plan = planBatch(names, [{ ...old, first_seen_date: '2025-12-30' }], store(storedAs(old)));
    expect(plan.outcomes.get('ad_02')).toEqual(['replaced']);
    expect(plan.toIndex.map((c) => c.index)).toEqual(['adi-ads-2025.12']);
    expect(plan.stale).toEqual([{ index: 'adi-ads-2026.01', id: 'ad_02' }]);
  });

  it('a copy left in another month is deleted even when the current version is unchanged', () => {
    const current = record('ad_02');
    const leftover = storedAs({ ...current, first_seen_date: '2025-12-30' });
    const plan = planBatch(names, [current], store(storedAs(current), leftover));
    expect(plan.outcomes.get('ad_02')).toEqual(['unchanged']);
    expect(plan.toIndex).toEqual([]);
    expect(plan.stale).toEqual([{ index: 'adi-ads-2025.12', id: 'ad_02' }]);
  });

  it('an id seen several times in one batch is classified in order and written once, in its last version', () => {
    const first = record('ad_10');
    const later = { ...first, last_seen_date: '2026-01-20', activity_days_amount: 9 };
    const plan = planBatch(names, [first, later, later], new Map());
    expect(plan.outcomes.get('ad_10')).toEqual(['added', 'replaced', 'unchanged']);
    expect(plan.toIndex).toEqual([{ index: 'adi-ads-2026.01', doc: expect.objectContaining({ last_seen_date: '2026-01-20' }) }]);
  });

  it('a sighting older than the one held changes nothing, in the store or earlier in the batch', () => {
    const held = record('ad_01');
    const older = { ...held, last_seen_date: '2026-01-20', status_today: 'inactive' as const };
    const sameDay = { ...held, impressions: held.impressions + 1 };
    const plan = planBatch(names, [older, sameDay, older], store(storedAs(held)));
    expect(plan.outcomes.get('ad_01')).toEqual(['unchanged', 'replaced', 'unchanged']);
    expect(plan.toIndex).toEqual([{ index: 'adi-ads-2026.01', doc: expect.objectContaining({ impressions: held.impressions + 1, status_today: 'active' }) }]);
    // A leftover copy in another month is older than the current one: the current one is what a sighting is compared with.
    const moved = record('ad_02');
    const leftover = storedAs({ ...moved, first_seen_date: '2025-12-30', last_seen_date: '2025-12-31' });
    const late = planBatch(names, [{ ...moved, last_seen_date: '2026-01-05' }], store(leftover, storedAs(moved)));
    expect(late.outcomes.get('ad_02')).toEqual(['unchanged']);
    expect(late.toIndex).toEqual([]);
  });

  it('a record without a usable first_seen_date is rejected with the reason and touches nothing', () => {
    const plan = planBatch(names, [{ ...record('ad_09'), first_seen_date: 'March' }], new Map());
    expect(plan.rejected).toEqual([{ line: 0, id: 'ad_09', reason: 'first_seen_date must be YYYY-MM-DD (got "March")' }]);
    expect(plan.toIndex).toEqual([]);
    expect(plan.outcomes.size).toBe(0);
    expect(plan.touched.advertisers).toEqual([]);
  });
});

describe('stored copies', () => {
  it('searches the read alias by ids, with room for a leftover copy per id', () => {
    expect(storedAdsRequest('adi-ads', ['a', 'b'])).toEqual({
      index: 'adi-ads',
      ignore_unavailable: true,
      allow_no_indices: true,
      query: { ids: { values: ['a', 'b'] } },
      size: 4,
      track_total_hits: false,
    });
  });

  it('groups the hits by id with the index that holds each copy', () => {
    const doc = storedAs(record('ad_01')).doc;
    const response = {
      hits: {
        hits: [
          { _index: 'adi-ads-2026.01', _id: 'ad_01', _source: doc },
          { _index: 'adi-ads-2025.12', _id: 'ad_01', _source: doc },
        ],
      },
    } as unknown as estypes.SearchResponse<StoredCopy['doc']>;
    expect(storedCopiesFrom(response).get('ad_01')?.map((c) => c.index)).toEqual(['adi-ads-2026.01', 'adi-ads-2025.12']);
  });

  it('splits long id lists into chunks', () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  });
});

describe('bulk actions', () => {
  it('indexes ads into their month by id and deletes old copies, as NDJSON operations', () => {
    const copy = storedAs(record('ad_01'));
    const actions = [...adIndexActions([copy]), ...deleteActions([{ index: 'adi-ads-2025.12', id: 'ad_01' }])];
    expect(bulkOperations(actions)).toEqual([
      // Versioned by last_seen_date: an older sighting cannot overwrite a newer one (409).
      { index: { _index: 'adi-ads-2026.01', _id: 'ad_01', version: Date.parse(`${copy.doc.last_seen_date}T00:00:00Z`), version_type: 'external_gte' } },
      copy.doc,
      { delete: { _index: 'adi-ads-2025.12', _id: 'ad_01' } },
    ]);
  });

  it('upserts entity records through the alias with the computation time as external version, and deletes the gone', () => {
    const doc: EntityDocument<unknown> = { id: 'adv_acme', name_suffixes: ['acme'], ads_total: 3, record: { id: 'adv_acme' } };
    expect(bulkOperations(entityActions('adi-advertisers', [doc], ['adv_gone'], 1_700_000_000_000))).toEqual([
      { index: { _index: 'adi-advertisers', _id: 'adv_acme', version: 1_700_000_000_000, version_type: 'external_gte', require_alias: true } },
      doc,
      { delete: { _index: 'adi-advertisers', _id: 'adv_gone', version: 1_700_000_000_000, version_type: 'external_gte' } },
    ]);
  });

  it('recomputes only the touched entities: the rollup walk behind a terms filter on their key', () => {
    const all = rollupPageRequest('adi-ads', 'domains');
    const touched = rollupPageRequest('adi-ads', 'domains', { key: 'a.com' }, ['a.com', 'b.com']);
    expect(all.query).toBeUndefined();
    expect(touched.query).toEqual({ bool: { filter: [{ terms: { registrable_domain: ['a.com', 'b.com'] } }] } });
    // Same aggregations either way, so the live record equals the offline one.
    expect(touched.aggs?.['entities']?.aggs).toEqual(all.aggs?.['entities']?.aggs);
    expect(touched.aggs?.['entities']?.composite).toMatchObject({ after: { key: 'a.com' }, sources: [{ key: { terms: { field: 'registrable_domain' } } }] });
  });
});

describe('bulk outcomes', () => {
  const action = (id: string): BulkAction => ({ action: { index: { _index: 'i', _id: id } }, document: { id }, id });
  const deletion = (id: string): BulkAction => ({ action: { delete: { _index: 'i', _id: id } }, id });
  const sent = [action('ok'), action('busy'), action('bad'), deletion('gone'), action('older'), action('no alias'), action('lost')];
  const item = (status: number, error?: { type: string; reason: string }, type = 'index') => ({ [type]: { _index: 'i', status, ...(error ? { error } : {}) } });
  const response = {
    took: 1,
    errors: true,
    items: [
      item(201),
      item(429, { type: 'es_rejected_execution_exception', reason: 'queue full' }),
      item(400, { type: 'mapper_parsing_exception', reason: 'failed to parse field [impressions]' }),
      item(404, undefined, 'delete'),
      item(409, { type: 'version_conflict_engine_exception', reason: 'newer version' }),
      item(404, { type: 'index_not_found_exception', reason: 'no such index [adi-advertisers]' }),
    ],
  } as unknown as estypes.BulkResponse;

  it('sorts items into throttled (to retry) and failed (with the reason); a delete of the gone and tolerated statuses are done', () => {
    const round = bulkRoundFrom(sent, response, [409]);
    expect(round.throttled.map((a) => a.id)).toEqual(['busy']);
    expect(round.failed.map((f) => [f.action.id, f.status, f.reason])).toEqual([
      ['bad', 400, 'mapper_parsing_exception: failed to parse field [impressions]'],
      // A 404 on a write is no "already gone": the alias is missing.
      ['no alias', 404, 'index_not_found_exception: no such index [adi-advertisers]'],
      // Fewer items than actions: the unanswered action is a failure, never silently lost.
      ['lost', 0, 'missing_item: the bulk response had no item for this action'],
    ]);
  });

  it('without tolerated statuses, a 409 is a failure', () => {
    expect(bulkRoundFrom(sent, response).failed.map((f) => f.action.id)).toEqual(['bad', 'older', 'no alias', 'lost']);
  });
});

describe('backoff', () => {
  const policy = { retries: 6, baseMs: 100, maxMs: 1_000 };

  it('doubles the ceiling each retry up to maxMs, with full jitter below it', () => {
    const highest = (attempt: number) => backoffDelay(attempt, policy, () => 0.999_999);
    expect([0, 1, 2, 3, 4, 5].map(highest)).toEqual([99, 199, 399, 799, 999, 999]);
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(400);
  });

  it('is bounded by default: under 16 s of pauses over all retries', () => {
    const total = Array.from({ length: DEFAULT_BACKOFF.retries }, (_, attempt) => backoffDelay(attempt, DEFAULT_BACKOFF, () => 0.999_999));
    expect(total.reduce((a, b) => a + b, 0)).toBeLessThan(16_000);
  });
});
