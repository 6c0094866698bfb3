/**
 * Answers of a stand-in Elasticsearch, built from a request and the fixture ads (test/store/store-fixture.ts) in the
 * shapes the specification gives each response type (search hits, total, each aggregate type; bulk items; acknowledged
 * answers). Every answer is itself checked against the specification's response type by the server (es-server.ts),
 * so the adapter only ever parses what a cluster may send. It is no search engine: it returns plausible documents and
 * buckets so that every code path sends its next request (pages, previous counts, rollups), not correct results.
 */
import { toAdDocument } from '../../../../src/store/elasticsearch/ad-document';
import { ENTITY_KINDS, type EntityKind } from '../../../../src/store/elasticsearch/index-names';
import { entityDocumentFrom, rollupPageRequest, type RollupBucket } from '../../../../src/store/elasticsearch/queries/rollups.query';
import { FIXTURE_RECORDS } from '../../store-fixture';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const DOCS: Json[] = FIXTURE_RECORDS.map((record) => JSON.parse(JSON.stringify(toAdDocument(record))) as Json);
const DATE_FIELDS = new Set(['first_seen_date', 'last_seen_date', 'active_period']);
const SHARDS = { total: 1, successful: 1, skipped: 0, failed: 0 };
const epoch = (date: string) => Date.parse(`${date}T00:00:00Z`);

/** Distinct values of a field over the fixture ads (array fields flattened), in first-seen order. */
function valuesOf(field: string): string[] {
  const seen = new Set<string>();
  for (const doc of DOCS) for (const value of [doc[field]].flat()) if (typeof value === 'string') seen.add(value);
  return [...seen];
}

const kindOf = (index: string): EntityKind | undefined => ENTITY_KINDS.find((kind) => new RegExp(`-${kind}(-\\d+)?$`).test(index));

/** An entity document of a kind, as the writer stores it, from a rollup bucket this stand-in answers. */
function entityDocument(kind: EntityKind, id?: string): Json {
  const aggs = rollupPageRequest('x', kind).aggs?.['entities']?.aggs ?? {};
  const key = id ?? valuesOf(rollupField(kind))[0] ?? 'e1';
  // More ads than any sub-bucket holds, so shares stay within [0, 1].
  const bucket = { key: { key }, doc_count: 1_000, ...aggregations(aggs as Json) } as unknown as RollupBucket;
  return JSON.parse(JSON.stringify(entityDocumentFrom(kind, bucket))) as Json;
}
const rollupField = (kind: EntityKind) =>
  ({ advertisers: 'advertiser_id', webmasters: 'webmaster_id', creatives: 'creative_id', domains: 'registrable_domain', apps: 'app_id' })[kind];

function sortValues(doc: Json, sort: unknown): unknown[] | undefined {
  if (!Array.isArray(sort)) return undefined;
  return sort.map((entry) => {
    const field = isObject(entry) ? Object.keys(entry)[0] ?? '' : String(entry);
    const value = doc[field];
    if (DATE_FIELDS.has(field) && typeof value === 'string') return epoch(value);
    return value ?? 0;
  });
}

const hit = (index: string, doc: Json, sort: unknown) => ({
  _index: index,
  _id: String(doc['id']),
  _score: null,
  _source: doc,
  ...(sortValues(doc, sort) ? { sort: sortValues(doc, sort) } : {}),
});

/** Ids a query asks for (`ids` or a `term` on id), if it asks for some. */
function idsOf(query: unknown): string[] | undefined {
  if (!isObject(query)) return undefined;
  if (isObject(query['ids']) && Array.isArray(query['ids']['values'])) return query['ids']['values'].map(String);
  if (isObject(query['term']) && query['term']['id'] !== undefined) {
    const term = query['term']['id'];
    return [String(isObject(term) ? term['value'] : term)];
  }
  return undefined;
}

/** A search answer: hits (three, one after a search_after), the total when tracked, and every aggregation asked. */
export function searchAnswer(index: string, body: Json): Json {
  const kind = kindOf(index);
  const ids = idsOf(body['query']);
  const size = Number(body['size'] ?? 10);
  const wanted = body['search_after'] ? 1 : 3;
  let docs: Json[];
  if (kind) docs = (ids ?? valuesOf(rollupField(kind)).slice(0, 3)).map((id) => entityDocument(kind, id));
  else docs = ids ? DOCS.filter((doc) => ids.includes(String(doc['id']))) : DOCS;
  docs = docs.slice(0, Math.min(size, wanted));
  // A change feed search (feed.query.ts) finds ads a live batch changed: they carry its feed fields.
  if (JSON.stringify(body['query'] ?? {}).includes('"feed_since"')) docs = docs.map((doc, i) => ({ ...doc, ...feedFields(i) }));
  const tracked = body['track_total_hits'] !== false;
  const aggs = (body['aggs'] ?? body['aggregations']) as Json | undefined;
  return {
    took: 1,
    timed_out: false,
    _shards: SHARDS,
    hits: {
      ...(tracked ? { total: { value: docs.length, relation: 'eq' } } : {}),
      max_score: null,
      hits: docs.map((doc) => hit(kind ? index : `${index}-${String(doc['first_seen_date']).slice(0, 7).replace('-', '.')}`, doc, body['sort'])),
    },
    ...(aggs ? { aggregations: aggregations(aggs) } : {}),
  };
}

/** The feed fields of an ad a live batch (position 1) brought or changed, as the writer stores them (change-feed.ts). */
const feedFields = (i: number): Json => ({
  change_seq: 1,
  changed_at: '2026-11-16T12:00:00.000Z',
  feed_since: [{ gte: 0, lt: 1 }],
  feed: i % 2 ? { added: 1, states: [[1, 'active:x']] } : { added: 0, states: [[0, 'active:x'], [1, 'active:y']] },
});

/** One answer per aggregation, in the shape of its aggregate type (StringTerms, Composite, Cardinality, Filter, Min/Max, TopHits, DateHistogram). */
export function aggregationsOf(aggs: Json): Json {
  return aggregations(aggs);
}

function aggregations(aggs: Json): Json {
  return Object.fromEntries(Object.entries(aggs).map(([name, container]) => [name, aggregate(container as Json)]));
}

function aggregate(container: Json): Json {
  const sub = isObject(container['aggs']) ? container['aggs'] : {};
  const bucket = (fields: Json, count: number) => ({ ...fields, doc_count: count, ...aggregations(sub) });
  const terms = container['terms'] as Json | undefined;
  if (terms) {
    const include = terms['include'];
    const keys = Array.isArray(include) ? include.map(String) : valuesOf(String(terms['field'])).slice(0, Number(terms['size'] ?? 10));
    return { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: keys.map((key, i) => bucket({ key }, keys.length - i + 1)) };
  }
  const composite = container['composite'] as Json | undefined;
  if (composite) {
    const [source] = (composite['sources'] as Json[]) ?? [];
    const [sourceName, definition] = Object.entries(source ?? {})[0] ?? ['key', {}];
    const field = String(((definition as Json)['terms'] as Json | undefined)?.['field'] ?? '');
    const keys = composite['after'] ? [] : valuesOf(field).slice(0, Number(composite['size'] ?? 10));
    const buckets = keys.map((key) => bucket({ key: { [sourceName]: key } }, 2));
    return { ...(keys.length ? { after_key: { [sourceName]: keys.at(-1) } } : {}), buckets };
  }
  if (container['cardinality']) return { value: 2 };
  if (container['filter']) return { doc_count: 2, ...aggregations(sub) };
  for (const metric of ['min', 'max'] as const) {
    const definition = container[metric] as Json | undefined;
    if (!definition) continue;
    const dates = valuesOf(String(definition['field'])).sort();
    const date = (metric === 'min' ? dates[0] : dates.at(-1)) ?? '2026-01-01';
    return { value: epoch(date), value_as_string: date };
  }
  const topHits = container['top_hits'] as Json | undefined;
  if (topHits) {
    const docs = DOCS.slice(0, Number(topHits['size'] ?? 3));
    return { hits: { total: { value: docs.length, relation: 'eq' }, max_score: null, hits: docs.map((doc) => hit('fixture', doc, topHits['sort'])) } };
  }
  const histogram = container['date_histogram'] as Json | undefined;
  if (histogram) {
    const bounds = (histogram['hard_bounds'] ?? histogram['extended_bounds'] ?? {}) as Json;
    const days: string[] = [];
    for (let t = epoch(String(bounds['min'] ?? '2026-01-01')); t <= epoch(String(bounds['max'] ?? '2026-01-03')); t += 86_400_000) {
      days.push(new Date(t).toISOString().slice(0, 10));
    }
    return { buckets: days.map((day) => bucket({ key: epoch(day), key_as_string: day }, 1)) };
  }
  throw new Error(`no stand-in answer for the aggregation ${JSON.stringify(Object.keys(container))}`);
}

/** A bulk answer: every action done (created, or deleted), in the specification's item shape. */
export function bulkAnswer(lines: unknown[]): Json {
  const items: Json[] = [];
  for (let i = 0; i < lines.length; i++) {
    const [operation, meta] = Object.entries(lines[i] as Json)[0] as [string, Json];
    if (operation !== 'delete') i++;
    const result = operation === 'delete' ? 'deleted' : 'created';
    items.push({
      [operation]: { _index: String(meta['_index'] ?? 'unknown'), _id: String(meta['_id'] ?? i), _version: 1, result, _shards: SHARDS, _seq_no: i, _primary_term: 1, status: operation === 'delete' ? 200 : 201 },
    });
  }
  return { took: 1, errors: false, items };
}
