import { All, Controller, Inject, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG } from '@adintel/config';
import { currentRequestId } from '@adintel/observability';
import { parseHttpArgs, REST_PREFIX } from '@adintel/tool-catalogue';
import { ServiceError } from '@adintel/contracts';
import type { AppConfig } from '../config';
import { BearerAuthGuard } from '../auth/bearer-auth.guard';
import { CurrentCaller, type Caller } from '../auth/caller';
import { checkIdempotencyKey, IDEMPOTENCY_HEADER } from '../idempotency/idempotency-key';
import { nothingCharged, receiptHeaders, type Receipt } from '../invocation/receipt';
import { ToolInvoker } from '../invocation/tool-invoker.service';
import { invalidArguments, problemFromServiceError, ProblemException } from '../problems/problem';
import { sendProblem } from '../problems/problem.filter';
import { RestRouteGuard, routeOf } from './rest-route.guard';

/** Every GET twin of the catalogue through one handler: no route is written by hand. */
@Controller(REST_PREFIX)
export class RestController {
  constructor(
    private readonly invoker: ToolInvoker,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @All('{*path}')
  @UseGuards(RestRouteGuard, BearerAuthGuard)
  async call(@Req() req: Request, @Res() res: Response, @CurrentCaller() caller: Caller): Promise<void> {
    const { tool, pathParams } = routeOf(req);
    const parsed = parseHttpArgs(tool, pathParams, queryValues(req.query));
    if (!parsed.ok) {
      throw new ProblemException(invalidArguments(parsed.errors));
    }
    const idempotency = checkIdempotencyKey(req.headers[IDEMPOTENCY_HEADER.toLowerCase()]);
    if (!idempotency.ok) {
      throw new ProblemException(invalidArguments([{ field: IDEMPOTENCY_HEADER, message: idempotency.message }]));
    }
    const requestId = currentRequestId() ?? 'unknown';
    try {
      const { result, receipt } = await this.invoker.invoke({ tool, args: parsed.args, caller, requestId, idempotencyKey: idempotency.key });
      setReceipt(res, receipt);
      res.setHeader('Cache-Control', 'no-store');
      res.json(result);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      setReceipt(res, nothingCharged());
      sendProblem(res, problemFromServiceError(error, tool), {
        baseUrl: this.config.PUBLIC_BASE_URL,
        instance: req.originalUrl.split('?')[0],
        requestId,
      });
    }
  }
}

function setReceipt(res: Response, receipt: Receipt) {
  for (const [name, value] of Object.entries(receiptHeaders(receipt))) res.setHeader(name, value);
}

/** The query string as strings; anything else a parser may build (objects) is passed on as text for validation to name. */
function queryValues(query: Request['query']): Record<string, string | string[]> {
  // Keys are the caller's: a plain object would swallow `__proto__` instead of reporting it.
  const values: Record<string, string | string[]> = Object.create(null);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    values[key] = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value : JSON.stringify(value);
  }
  return values;
}
