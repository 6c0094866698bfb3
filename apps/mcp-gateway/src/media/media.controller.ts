import { pipeline } from 'node:stream/promises';
import { All, Controller, Get, Inject, Param, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG } from '@adintel/config';
import { ServiceError } from '@adintel/contracts';
import { currentRequestId } from '@adintel/observability';
import { REST_PREFIX } from '@adintel/tool-catalogue';
import type { AppConfig } from '../config';
import { BearerAuthGuard } from '../auth/bearer-auth.guard';
import { CurrentCaller, type Caller } from '../auth/caller';
import { checkIdempotencyKey, IDEMPOTENCY_HEADER } from '../idempotency/idempotency-key';
import { nothingCharged, receiptHeaders, type Receipt } from '../invocation/receipt';
import { invalidArguments, problemFromServiceError, ProblemException, type ProblemSpec } from '../problems/problem';
import { sendProblem } from '../problems/problem.filter';
import { quoteEtag } from './media-range';
import { MediaService, type MediaAnswer, type MediaHead, type MediaTarget } from './media.service';
import { expressRoute, MEDIA_FILE_PATH, parseTarget } from './media-target';

/**
 * `GET` (and `HEAD`) `/api/v1/creo/{id}/media/{n}` and `…/{n}/thumbnail`: the URLs of get_ad/get_creative media
 * entries. Registered ahead of the REST catch-all; MediaService holds the logic.
 */
@Controller(`${REST_PREFIX}${expressRoute(MEDIA_FILE_PATH)}`)
@UseGuards(BearerAuthGuard)
export class MediaController {
  constructor(
    private readonly media: MediaService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  file(@Param('id') id: string, @Param('n') n: string, @Req() req: Request, @Res() res: Response, @CurrentCaller() caller: Caller) {
    return this.serve('file', id, n, req, res, caller);
  }

  @Get('thumbnail')
  thumbnail(@Param('id') id: string, @Param('n') n: string, @Req() req: Request, @Res() res: Response, @CurrentCaller() caller: Caller) {
    return this.serve('thumbnail', id, n, req, res, caller);
  }

  /** Any other method on a media path: read-only, like the REST twins. */
  @All(['', 'thumbnail'])
  readOnly(@Req() req: Request): never {
    throw new ProblemException({
      status: 405,
      code: 'method_not_allowed',
      detail: `${req.originalUrl.split('?')[0]} is read-only: use GET or HEAD`,
      headers: { Allow: 'GET, HEAD' },
    });
  }

  private async serve(variant: MediaTarget['variant'], id: string, n: string, req: Request, res: Response, caller: Caller): Promise<void> {
    const requestId = currentRequestId() ?? 'unknown';
    const fail = (spec: ProblemSpec) => {
      setReceipt(res, nothingCharged());
      sendProblem(res, spec, { baseUrl: this.config.PUBLIC_BASE_URL, instance: req.originalUrl.split('?')[0], requestId });
    };
    const parsed = parseTarget(id, n, variant);
    if (!parsed.ok) {
      return fail(parsed.notFound ? { status: 404, code: 'not_found', detail: `creative ${JSON.stringify(id)} has no media ${n}` } : invalidArguments(parsed.errors));
    }
    const idempotency = checkIdempotencyKey(req.headers[IDEMPOTENCY_HEADER.toLowerCase()]);
    if (!idempotency.ok) return fail(invalidArguments([{ field: IDEMPOTENCY_HEADER, message: idempotency.message }]));

    let answer: MediaAnswer;
    try {
      answer = await this.media.serve({
        target: parsed.target,
        caller,
        requestId,
        idempotencyKey: idempotency.key,
        range: req.headers.range,
        ifNoneMatch: req.headers['if-none-match'],
        headOnly: req.method === 'HEAD',
      });
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      return fail(problemFromServiceError(error));
    }

    if (answer.kind === 'unsatisfiable') {
      return fail({
        status: 416,
        code: 'range_not_satisfiable',
        detail: `Range ${answer.reason}`,
        errors: [{ field: 'Range', message: answer.reason }],
        headers: { 'Content-Range': `bytes */${answer.size}` },
      });
    }
    setReceipt(res, answer.receipt);
    setFileHeaders(res, answer.head, answer.kind !== 'head' || answer.etag);
    if (answer.kind === 'not_modified') {
      res.status(304).end();
      return;
    }
    if (answer.kind === 'head') {
      res.status(200).setHeader('Content-Length', String(answer.head.size));
      res.end();
      return;
    }
    res.status(answer.range ? 206 : 200).setHeader('Content-Length', String(answer.length));
    if (answer.range) res.setHeader('Content-Range', `bytes ${answer.range.start}-${answer.range.end}/${answer.head.size}`);
    try {
      await pipeline(answer.body, res);
    } catch (error) {
      // The status is sent: all that is left is to cut the answer short, so the caller sees it incomplete.
      res.destroy(error as Error);
    } finally {
      answer.release();
    }
  }
}

function setReceipt(res: Response, receipt: Receipt) {
  for (const [name, value] of Object.entries(receiptHeaders(receipt))) res.setHeader(name, value);
}

/**
 * The type only from the allowlist (MediaFiles checked it), never sniffed; the content key as a strong ETag (on a
 * HEAD only to a caller who paid for the file today, or of a thumbnail).
 * `private, no-cache`: a browser may keep the bytes but asks again with If-None-Match (a 304 is free), because
 * every answer depends on the caller's token; no shared cache may keep it.
 */
function setFileHeaders(res: Response, head: MediaHead, etag: boolean) {
  res.setHeader('Content-Type', head.mime);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (etag) res.setHeader('ETag', quoteEtag(head.key));
  res.setHeader('Cache-Control', 'private, no-cache');
  res.setHeader('Accept-Ranges', 'bytes');
}
