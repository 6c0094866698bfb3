import type { IncomingMessage, ServerResponse } from 'node:http';
import pinoHttp from 'pino-http';
import type { Logger } from 'pino';
import { requestIdFrom, runWithRequestId } from './request-context';

export const REQUEST_ID_HEADER = 'x-request-id';

type Next = (err?: unknown) => void;

/** The path part of a request target, without its query string. */
const pathOf = (url: string | undefined): string => (url ?? '').split('?', 1).at(0) ?? '';

/**
 * Express middleware: adopts or makes the request id, echoes it in `X-Request-Id`,
 * runs the rest of the request inside its context and logs one line per response.
 */
export function httpRequestLogging(logger: Logger, quietPaths: readonly string[] = ['/healthz', '/readyz', '/metrics']) {
  const logHttp = pinoHttp({
    logger,
    genReqId: (req) => (req as IncomingMessage & { id: string }).id,
    autoLogging: { ignore: (req) => quietPaths.includes(pathOf(req.url)) },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    serializers: {
      // The id as well: a request cut before its answer is logged ("request aborted") outside its context, so the
      // logger's request_id is missing from that line.
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
  });
  return (req: IncomingMessage & { id?: string }, res: ServerResponse, next: Next) => {
    const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    req.id = requestId;
    res.setHeader('X-Request-Id', requestId);
    runWithRequestId(requestId, () => logHttp(req, res, next));
  };
}
