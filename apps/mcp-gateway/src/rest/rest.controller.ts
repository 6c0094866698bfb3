import { All, Controller, Inject, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG } from '@adintel/config';
import { currentRequestId } from '@adintel/observability';
import { parseHttpArgs } from '@adintel/tool-catalogue';
import { ServiceError } from '@adintel/contracts';
import type { AppConfig } from '../config';
import { BearerAuthGuard } from '../auth/bearer-auth.guard';
import { CurrentCaller, type Caller } from '../auth/caller';
import { ToolInvoker, type Receipt } from '../invocation/tool-invoker.service';
import { problemFromServiceError, ProblemException } from '../problems/problem';
import { sendProblem } from '../problems/problem.filter';
import { RestRouteGuard, routeOf } from './rest-route.guard';

export const TOKENS_CHARGED_HEADER = 'X-Tokens-Charged';
export const TOKENS_REMAINING_HEADER = 'X-Tokens-Remaining';

/** Every GET twin of the catalogue through one handler: no route is written by hand. */
@Controller('api/v1')
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
      throw new ProblemException({
        status: 400,
        code: 'invalid_argument',
        detail: parsed.errors.map((e) => `${e.field}: ${e.message}`).join('; '),
        errors: parsed.errors,
      });
    }
    const requestId = currentRequestId() ?? 'unknown';
    try {
      const { result, receipt } = await this.invoker.invoke({ tool, args: parsed.args, caller, requestId });
      setReceipt(res, receipt);
      res.setHeader('Cache-Control', 'no-store');
      res.json(result);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      setReceipt(res, { charged: 0 });
      sendProblem(res, problemFromServiceError(error, tool), {
        baseUrl: this.config.PUBLIC_BASE_URL,
        instance: req.originalUrl.split('?')[0],
        requestId,
      });
    }
  }
}

function setReceipt(res: Response, receipt: Receipt) {
  res.setHeader(TOKENS_CHARGED_HEADER, String(receipt.charged));
  if (receipt.remaining !== undefined) res.setHeader(TOKENS_REMAINING_HEADER, String(receipt.remaining));
}

/** The query string as strings; anything else a parser may build (objects) is passed on as text for validation to name. */
function queryValues(query: Request['query']): Record<string, string | string[]> {
  const values: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    values[key] = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value : JSON.stringify(value);
  }
  return values;
}
