import { errors } from '@elastic/elasticsearch';
import type Mock from '@elastic/elasticsearch-mock';

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
