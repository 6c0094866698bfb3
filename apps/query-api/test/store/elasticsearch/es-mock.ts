import { errors } from '@elastic/elasticsearch';

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
