/**
 * Elasticsearch rules the specification cannot express (its types say `missing` is any field value, a bulk body any
 * list), checked on every request the engine's tests see. Each rule cites where it comes from (the limits are the
 * cluster defaults of Elastic's index-modules and search-settings documentation; the `missing` rule is
 * Elasticsearch's `IndexFieldData.missingObject`, which parses a numeric or date sort's `missing` as a number).
 */
import { adMapping, entityMapping } from '../../../../src/store/elasticsearch/mappings';
import { ENTITY_KINDS } from '../../../../src/store/elasticsearch/index-names';
import type { HttpRequest } from './es-spec';
import { specification } from './es-spec';

/** `index.max_result_window`: from + size of one search. */
export const MAX_RESULT_WINDOW = 10_000;
/** `index.max_inner_result_window`: size of a top_hits aggregation. */
export const MAX_INNER_RESULT_WINDOW = 100;
/** `index.max_terms_count`: values of one `terms` query. */
export const MAX_TERMS_COUNT = 65_536;
/** `search.max_buckets`: buckets of every multi-bucket aggregation of one response, summed over the tree. */
export const MAX_BUCKETS = 65_536;
/**
 * Memory one request may give its `cardinality` aggregations: about precision_threshold x 8 bytes per bucket they
 * run in (cardinality documentation, "Counts are approximate"). 64 MB per shard request, a small part of the
 * request circuit breaker (60 % of a heap of a few GB), so concurrent requests do not trip it.
 */
export const CARDINALITY_BUDGET_BYTES = 64 * 1024 * 1024;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Field types of the engine's indices (ads and every entity kind share field names only where types agree). */
const FIELD_TYPES: ReadonlyMap<string, string> = new Map(
  [adMapping, ...ENTITY_KINDS.map(entityMapping)].flatMap((mapping) =>
    Object.entries(mapping.properties ?? {}).map(([name, prop]) => [name, String(prop.type ?? 'object')] as const),
  ),
);
const SORTS_AS_NUMBER = new Set(['date', 'integer', 'long', 'double', 'float', 'short', 'byte']);

/** Errors of a search body against the rules. */
export function searchRuleErrors(body: Json): string[] {
  const errors: string[] = [];
  const sort = Array.isArray(body['sort']) ? body['sort'] : body['sort'] === undefined ? [] : [body['sort']];
  sort.forEach((entry, i) => {
    if (!isObject(entry)) return;
    for (const [field, options] of Object.entries(entry)) {
      const type = FIELD_TYPES.get(field);
      const missing = isObject(options) ? options['missing'] : undefined;
      if (type && SORTS_AS_NUMBER.has(type) && missing !== undefined && typeof missing !== 'number' && missing !== '_first' && missing !== '_last') {
        errors.push(`sort[${i}].${field}.missing: a ${type} sort parses missing as a number or _first/_last (got ${JSON.stringify(missing)})`);
      }
    }
  });
  const after = body['search_after'];
  if (Array.isArray(after) && after.length !== sort.length) errors.push(`search_after: ${after.length} values for ${sort.length} sort fields`);
  const window = Number(body['from'] ?? 0) + Number(body['size'] ?? 10);
  if (window > MAX_RESULT_WINDOW) errors.push(`size: from + size ${window} is past index.max_result_window ${MAX_RESULT_WINDOW}`);
  walkQueries(body['query'], errors);
  const aggs = (body['aggs'] ?? body['aggregations']) as Json | undefined;
  if (aggs) {
    const buckets = bucketsOf(aggs, errors);
    if (buckets > MAX_BUCKETS) errors.push(`aggs: up to ${buckets} buckets, past search.max_buckets ${MAX_BUCKETS}`);
    const memory = cardinalityBytes(aggs, 1);
    if (memory > CARDINALITY_BUDGET_BYTES) errors.push(`aggs: cardinality may take ${Math.round(memory / 2 ** 20)} MB per shard, past the ${CARDINALITY_BUDGET_BYTES / 2 ** 20} MB budget`);
  }
  return errors;
}

function walkQueries(query: unknown, errors: string[]): void {
  if (Array.isArray(query)) return query.forEach((q) => walkQueries(q, errors));
  if (!isObject(query)) return;
  for (const [name, value] of Object.entries(query)) {
    if (name === 'terms' && isObject(value)) {
      for (const list of Object.values(value)) {
        if (Array.isArray(list) && list.length > MAX_TERMS_COUNT) errors.push(`terms: ${list.length} values, past index.max_terms_count`);
      }
    }
    if (name === 'ids' && isObject(value) && Array.isArray(value['values']) && value['values'].length > MAX_TERMS_COUNT) {
      errors.push(`ids: ${value['values'].length} values, past index.max_terms_count`);
    }
    walkQueries(value, errors);
  }
}

/** Days between two YYYY-MM-DD dates, both included. */
const daysBetween = (from: unknown, to: unknown) => Math.round((Date.parse(String(to)) - Date.parse(String(from))) / 86_400_000) + 1;

/**
 * The most buckets one level of aggregations can answer with, sub-aggregations included (a bucket of a terms agg of
 * size n carries its sub-aggregations' buckets n times). Single-bucket and metric aggregations count none themselves.
 */
function bucketsOf(aggs: Json, errors: string[]): number {
  let total = 0;
  for (const [name, container] of Object.entries(aggs)) {
    if (!isObject(container)) continue;
    const sub = isObject(container['aggs']) ? bucketsOf(container['aggs'], errors) : 0;
    const terms = container['terms'] as Json | undefined;
    const composite = container['composite'] as Json | undefined;
    const histogram = container['date_histogram'] as Json | undefined;
    const topHits = container['top_hits'] as Json | undefined;
    let own = 0;
    if (terms) own = Number(terms['size'] ?? 10);
    else if (composite) own = Number(composite['size'] ?? 10);
    else if (histogram) {
      const bounds = (histogram['hard_bounds'] ?? histogram['extended_bounds']) as Json | undefined;
      if (!bounds) errors.push(`aggs.${name}.date_histogram: unbounded, its buckets cannot be budgeted`);
      else own = daysBetween(bounds['min'], bounds['max']);
    }
    if (topHits && Number(topHits['size'] ?? 3) > MAX_INNER_RESULT_WINDOW) errors.push(`aggs.${name}.top_hits.size: past index.max_inner_result_window`);
    total += own ? own * (1 + sub) : sub;
  }
  return total;
}

/** Worst-case bytes of the cardinality aggregations per shard (buckets per shard: shard_size of terms, page size of composite). */
function cardinalityBytes(aggs: Json, multiplier: number): number {
  let total = 0;
  for (const container of Object.values(aggs)) {
    if (!isObject(container)) continue;
    const cardinality = container['cardinality'] as Json | undefined;
    if (cardinality) total += multiplier * Number(cardinality['precision_threshold'] ?? 3_000) * 8;
    const terms = container['terms'] as Json | undefined;
    const composite = container['composite'] as Json | undefined;
    const own = terms ? Number(terms['shard_size'] ?? terms['size'] ?? 10) : composite ? Number(composite['size'] ?? 10) : 1;
    if (isObject(container['aggs'])) total += cardinalityBytes(container['aggs'], multiplier * own);
  }
  return total;
}

/** Fields a document may carry under `dynamic: strict` (objects mapped `enabled: false` take anything). */
const mappedFields = (index: string): ReadonlySet<string> | undefined => {
  const kind = ENTITY_KINDS.find((k) => new RegExp(`-${k}(-|$)`).test(index));
  const mapping = kind ? entityMapping(kind) : /-ads(-|$)/.test(index) ? adMapping : undefined;
  return mapping ? new Set(Object.keys(mapping.properties ?? {})) : undefined;
};

/**
 * A bulk body: each line an action (one operation of OperationContainer, checked on the specification), index and
 * create followed by their document, delete by none; a document only with fields the index maps (dynamic: strict).
 */
export function bulkRuleErrors(lines: unknown[], defaultIndex?: string): string[] {
  const spec = specification();
  const errors: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const actionErrors = spec.validateType('_global.bulk', 'OperationContainer', line, `line ${i + 1}`);
    if (actionErrors.length) {
      errors.push(...actionErrors);
      continue;
    }
    const [operation, meta] = Object.entries(line as Json)[0] as [string, Json];
    if (operation === 'delete') continue;
    const document = lines[++i];
    if (!isObject(document)) {
      errors.push(`line ${i}: the ${operation} action needs its document`);
      continue;
    }
    const index = String(meta['_index'] ?? defaultIndex ?? '');
    const fields = mappedFields(index);
    if (!fields) continue;
    for (const field of Object.keys(operation === 'update' ? ((document['doc'] as Json | undefined) ?? {}) : document)) {
      if (!fields.has(field)) errors.push(`line ${i + 1}: field ${field} is not mapped in ${index} (dynamic: strict refuses the document)`);
    }
  }
  return errors;
}

/** Parses an NDJSON body as the client sends it. */
export const ndjsonLines = (body: string): unknown[] =>
  body
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as unknown);

/** Every error of one HTTP request: the specification, then the rules of its kind. */
export function httpRequestErrors(request: HttpRequest): string[] {
  const { endpoint, errors } = specification().validateHttp(request);
  const indexParam = request.path.split('/').filter(Boolean)[0];
  if (endpoint === 'bulk') errors.push(...bulkRuleErrors(Array.isArray(request.body) ? request.body : [], indexParam?.startsWith('_') ? undefined : indexParam));
  if ((endpoint === 'search' || endpoint === 'count') && isObject(request.body)) errors.push(...searchRuleErrors(request.body));
  return errors.map((e) => `${request.method} ${request.path}: ${e}`);
}
