import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ServiceError } from '@adintel/contracts';
import { bodyFailureOf, currentRequestId } from '@adintel/observability';
import { jsonRpcError, unparsableBody } from '../mcp/json-rpc-envelope';
import { bodyFailureProblem } from './body-failure';
import { codeForStatus, problemFromServiceError, ProblemException, renderProblem, type ProblemSpec } from './problem';

/**
 * Every failure leaves the gateway as `application/problem+json`, whoever threw it.
 * Only our own bugs become a 500, and those are logged with their stack, never sent.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  constructor(private readonly baseUrl: string) {}

  catch(exception: unknown, host: ArgumentsHost) {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const bodyFailure = bodyFailureOf(exception);
    if (bodyFailure?.kind === 'unparsable' && isMcpPath(req)) {
      // An MCP client reads JSON-RPC: -32700 (not JSON) or -32600 (JSON, but not a request object).
      const rejection = unparsableBody(bodyFailure.raw);
      res.status(rejection.status).json(jsonRpcError(rejection));
      return;
    }
    const spec = bodyFailure ? bodyFailureProblem(bodyFailure) : this.toSpec(exception);
    if (res.headersSent) {
      this.logger.warn(`failure after the response started: ${spec.detail}`);
      res.end();
      return;
    }
    sendProblem(res, spec, { baseUrl: this.baseUrl, instance: req.originalUrl.split('?')[0], requestId: currentRequestId() });
  }

  private toSpec(exception: unknown): ProblemSpec {
    if (exception instanceof ProblemException) return exception.spec;
    if (exception instanceof ServiceError) return problemFromServiceError(exception);
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status >= 500) this.logger.error(exception);
      return { status, code: codeForStatus(status), detail: detailOf(exception) };
    }
    this.logger.error(exception instanceof Error ? exception : new Error(String(exception)));
    return { status: 500, code: 'internal', detail: 'the request failed on our side; it was not charged' };
  }
}

export function sendProblem(
  res: Response,
  spec: ProblemSpec,
  context: { baseUrl: string; instance?: string; requestId?: string },
) {
  res.status(spec.status);
  for (const [name, value] of Object.entries(spec.headers ?? {})) res.setHeader(name, value);
  res.setHeader('Cache-Control', 'no-store');
  res.type('application/problem+json').send(JSON.stringify(renderProblem(spec, context)));
}

const isMcpPath = (req: Request) => {
  const [path = ''] = req.originalUrl.split('?');
  return path.replace(/\/+$/, '') === '/mcp';
};

function detailOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}
