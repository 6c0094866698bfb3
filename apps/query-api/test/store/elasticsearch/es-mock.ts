import { errors } from '@elastic/elasticsearch';
import type Mock from '@elastic/elasticsearch-mock';
import { aggregationsOf } from './spec/es-answers';

/**
 * An Elasticsearch error answer for @elastic/elasticsearch-mock, which stands in for the cluster in these specs:
 * the client's own ResponseError (CommonJS export), which the mock turns into an HTTP error response.
 */
export function responseError(statusCode: number, type: string): errors.ResponseError {
  return new errors.ResponseError({
    body: { error: { type, reason: type }, status: statusCode },
    statusCode,
    headers: {},
    warnings: null,
    meta: {} as never,
  });
}

/**
 * The feed's position document (change-feed.ts) on @elastic/elasticsearch-mock, kept as a cluster would: a get answers
 * the last write (404 before the first), and every write takes the next `_seq_no`. The writer's conditions on it are
 * exercised against the stand-in cluster (change-feed.spec.ts); here they only have to be answered.
 */
export function mockFeedPosition(mock: Mock): { writes: unknown[] } {
  const writes: unknown[] = [];
  mock.add({ method: 'GET', path: '/:index/_doc/:id' }, (params) => {
    const [, index = '', , id = ''] = String(params.path).split('/');
    const last = writes.at(-1);
    if (last === undefined) return responseError(404, 'document_missing');
    return { _index: index, _id: id, _version: writes.length, _seq_no: writes.length - 1, _primary_term: 1, found: true, _source: last };
  });
  mock.add({ method: ['PUT', 'POST'], path: '/:index/_doc/:id' }, (params) => {
    const [, index = '', , id = ''] = String(params.path).split('/');
    writes.push(params.body);
    const shards = { total: 1, successful: 1, failed: 0 };
    return { _index: index, _id: id, _version: writes.length, result: 'created', _shards: shards, _seq_no: writes.length - 1, _primary_term: 1 };
  });
  return { writes };
}

const SHARDS = { total: 1, successful: 1, skipped: 0, failed: 0 };
type Json = Record<string, unknown>;

/**
 * A search answer in the specification's SearchResponse shape (`took`, `timed_out`, `_shards`, hits with their index
 * and id) around the hits, total and aggregations a test scripts. The validating mock checks it against the response
 * type, the aggregations against the aggregate types their request implies.
 */
export function searchBody(parts: { hits?: { _source: Json; _index?: string; sort?: unknown[] }[]; total?: { value: number; relation: 'eq' | 'gte' }; aggregations?: Json } = {}): Json {
  return {
    took: 1,
    timed_out: false,
    _shards: SHARDS,
    hits: {
      ...(parts.total ? { total: parts.total } : {}),
      max_score: null,
      hits: (parts.hits ?? []).map((hit) => ({ _index: 'adi-ads-2026.03', _id: String(hit._source['id'] ?? 'doc'), _score: null, ...hit })),
    },
    ...(parts.aggregations ? { aggregations: parts.aggregations } : {}),
  };
}

/** An `indices.create` answer as the specification gives it. */
export const createdIndex = (index: string): Json => ({ acknowledged: true, shards_acknowledged: true, index });

/**
 * A composite bucket of a rollup page with every sub-aggregation its request names, each in the shape of its
 * aggregate type (spec/es-answers.ts): a cluster answers them all, so a parser must read them all.
 */
export function rollupBucket(requestBody: unknown, key: string, docCount: number): Json {
  const aggs = (requestBody as { aggs?: { entities?: { aggs?: Json } } }).aggs?.entities?.aggs ?? {};
  return { key: { key }, doc_count: docCount, ...aggregationsOf(aggs) };
}
