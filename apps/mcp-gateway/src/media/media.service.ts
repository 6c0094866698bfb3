import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import { ServiceError } from '@adintel/contracts';
import { actualCost, MEDIA_FILE, worstCaseCost } from '@adintel/tool-catalogue';
import type { Caller } from '../auth/caller';
import type { AppConfig } from '../config';
import { nothingCharged, type Receipt } from '../invocation/receipt';
import { ToolInvoker } from '../invocation/tool-invoker.service';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { MediaFiles, type MediaHead, type MediaTarget } from './media-files';
import { MediaPassRepository } from './media-pass.repository';
import { etagListed, rangeOf, type ByteRange } from './media-range';

export type { MediaHead, MediaTarget };

export interface MediaRequest {
  readonly target: MediaTarget;
  readonly caller: Caller;
  readonly requestId: string;
  readonly idempotencyKey?: string;
  /** The Range header as sent (undefined: the whole file). */
  readonly range?: string | string[];
  readonly ifNoneMatch?: string;
  /** HEAD: the headers only, free. */
  readonly headOnly?: boolean;
  /** The most bytes the caller can take (MCP resources/read); a larger file is refused before it is charged. */
  readonly maxBytes?: number;
  /**
   * For a caller that must hold the whole file in memory (MCP resources/read): takes `size` bytes of a bounded budget
   * and returns how to give them back, or null when the budget is spent (a 429 before anything is charged).
   */
  readonly holdBytes?: (size: number) => (() => void) | null;
}

export type MediaAnswer =
  | { readonly kind: 'not_modified'; readonly head: MediaHead; readonly receipt: Receipt }
  /** HEAD. `etag`: whether the caller may learn the ETag (a thumbnail, or a file it paid for today). */
  | { readonly kind: 'head'; readonly head: MediaHead; readonly etag: boolean; readonly receipt: Receipt }
  /** A caller asked a range none of the file holds, or a Range header we cannot read: 416. */
  | { readonly kind: 'unsatisfiable'; readonly size: number; readonly reason: string }
  | {
      readonly kind: 'body';
      readonly head: MediaHead;
      /** The bytes sent, or null: the whole file (a 200). */
      readonly range: ByteRange | null;
      readonly length: number;
      /** The bytes, streamed from the media store as they are sent. */
      readonly body: Readable;
      readonly receipt: Receipt;
      /** Gives back what `holdBytes` took, once the body is consumed. */
      readonly release: () => void;
    };

/** What an Idempotency-Key keeps of a paid file read: not the bytes (a replay reads them again, free). */
interface FileGrant {
  readonly etag: string;
}

/** How long a request waits for another request of the same caller paying for the same file (first ranges at once). */
const PASS_WAIT_MS = 5_000;
const PASS_POLL_MS = 100;

/**
 * Serves a creative's media (docs/media.md, "Serving files"). A thumbnail is free. A full file costs `media_file`
 * (10 tokens) through ToolInvoker's reserve/settle path, at most once per caller, file and UTC day: a video player
 * asks many ranges of one file, and each after the first that day is free (the day pass, in the gateway's Redis).
 * HEAD, a 304 and a 416 are free, and every read, free or not, is inside the caller's rate limit. The bytes come from
 * the media store (MediaFiles), never over the transport.
 */
@Injectable()
export class MediaService {
  private readonly logger = new Logger('Media');

  constructor(
    private readonly files: MediaFiles,
    private readonly passes: MediaPassRepository,
    private readonly invoker: ToolInvoker,
    private readonly limiter: RateLimiterService,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'TRANSPORT_TIMEOUT_MS' | 'SETTLE_ATTEMPTS'>,
  ) {}

  async serve(request: MediaRequest): Promise<MediaAnswer> {
    const { target, caller } = request;
    // Every read, paid or free (a thumbnail, a re-read under the day pass, HEAD, a 304, a 416), takes one call of the
    // caller's free bucket; a paid first read takes one of the paid bucket too (through ToolInvoker).
    await this.limiter.consume(caller.sub, 'free_data');
    const head = await this.files.head(target);
    // A 304 answers a caller who already holds the ETag (from a paid read, or the bytes themselves): it tells nothing
    // new; `*` names no ETag, so it gets no 304 of a file (the 304 would carry the ETag). A HEAD would tell anyone the
    // ETag, the SHA-256 of the file: it says it only to a caller who paid for the file today (or of a free thumbnail),
    // so an unpaid caller cannot confirm a guessed file or learn which creatives share one.
    const named = request.ifNoneMatch !== undefined && (target.variant === 'thumbnail' || request.ifNoneMatch.trim() !== '*');
    if (named && etagListed(request.ifNoneMatch, head.key)) return { kind: 'not_modified', head, receipt: nothingCharged() };
    const pass = passKey(caller, target);
    if (request.headOnly) return { kind: 'head', head, etag: target.variant === 'thumbnail' || (await this.paidToday(pass)), receipt: nothingCharged() };

    const range = rangeOf(request.range, head.size);
    if (range.kind === 'unsatisfiable') return { kind: 'unsatisfiable', size: head.size, reason: range.reason };
    if (request.maxBytes !== undefined && head.size > request.maxBytes) {
      throw ServiceError.invalidArgument([
        { field: 'uri', message: `the file is ${head.size} bytes, over the ${request.maxBytes}-byte bound of this read: download it from its URL (Range supported)` },
      ]);
    }

    const release = request.holdBytes ? request.holdBytes(head.size) : () => undefined;
    if (!release) throw ServiceError.of('rate_limited', 'too many large media reads in flight on this server: retry in a moment', { retry_after_seconds: 1 });
    try {
      const wanted = range.kind === 'range' ? { start: range.start, end: range.end } : undefined;
      const open = () => this.files.open(head, wanted);
      const { body, receipt } = target.variant === 'thumbnail' ? { body: await open(), receipt: nothingCharged() } : await this.paidRead(request, pass, head, open);
      return { kind: 'body', head, range: wanted ?? null, length: wanted ? wanted.end - wanted.start + 1 : head.size, body, receipt, release };
    } catch (error) {
      release();
      throw error;
    }
  }

  private async paidToday(pass: string): Promise<boolean> {
    try {
      return await this.passes.isPaid(pass);
    } catch (error) {
      // Unknown: the ETag stays unsaid.
      this.logger.warn(`could not read the media pass ${pass}: ${(error as Error).message}`);
      return false;
    }
  }

  /**
   * A full file: free when the caller paid for it today (the pass), else charged through ToolInvoker (reserve,
   * read, settle; released if the read fails; an Idempotency-Key replay is free). A request of the same caller
   * already paying for this file is waited for rather than paid twice.
   */
  private async paidRead(request: MediaRequest, pass: string, head: MediaHead, open: () => Promise<Readable>): Promise<{ body: Readable; receipt: Receipt }> {
    const { target, caller } = request;
    const token = `claim:${request.requestId}:${randomBytes(6).toString('base64url')}`;
    const deadline = Date.now() + PASS_WAIT_MS;
    for (;;) {
      const claim = await this.passes.claim(pass, token, this.claimSeconds());
      if (claim === 'claimed') break;
      if (claim === 'paid') return { body: await open(), receipt: nothingCharged() };
      if (Date.now() >= deadline) {
        throw ServiceError.of('conflict', 'another request of yours is paying for this file: retry in a moment', { retry_after_seconds: 1 });
      }
      await sleep(PASS_POLL_MS);
    }

    let body: Readable | undefined;
    try {
      const outcome = await this.invoker.invokePriced<FileGrant>({
        priced: MEDIA_FILE,
        worstCase: worstCaseCost(MEDIA_FILE, {}),
        // The file, not the range: a replay of the key for another range of the same file is still a replay.
        args: { creative_id: target.creativeId, index: target.index },
        caller,
        requestId: request.requestId,
        idempotencyKey: request.idempotencyKey,
        run: async () => {
          body = await open();
          return { etag: head.key };
        },
        cost: (grant) => actualCost(MEDIA_FILE, grant),
      });
      // A replay may come on a later day: it is free, but it does not buy that day's pass.
      const paid = !outcome.replay && (outcome.receipt.status === 'pending' || outcome.receipt.charged > 0);
      if (paid) await this.keepPass(pass);
      else await this.passes.dropClaim(pass, token);
      return { body: body ?? (await open()), receipt: outcome.receipt };
    } catch (error) {
      body?.destroy();
      await this.passes.dropClaim(pass, token).catch((e: Error) => this.logger.warn(`could not drop the media pass claim ${pass}: ${e.message}`));
      throw error;
    }
  }

  /** Until the end of the UTC day (and a minute, for clocks a little apart); a failure only costs the caller a second charge. */
  private async keepPass(pass: string): Promise<void> {
    const now = new Date();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    try {
      await this.passes.markPaid(pass, Math.ceil((midnight - now.getTime()) / 1000) + 60);
    } catch (error) {
      this.logger.warn(`could not keep the media pass ${pass}; a later range of the file will be charged again: ${(error as Error).message}`);
    }
  }

  /** A running claim outlives its longest path (reserve, read, every settle attempt), like an idempotency claim. */
  private claimSeconds(): number {
    return Math.ceil((this.config.TRANSPORT_TIMEOUT_MS * (2 + this.config.SETTLE_ATTEMPTS)) / 1000) + 5;
  }
}

/** The day pass of a caller for a file: one key per caller, file and UTC day. */
function passKey(caller: Caller, target: MediaTarget): string {
  const day = new Date().toISOString().slice(0, 10);
  return [day, encodeURIComponent(caller.sub), encodeURIComponent(target.creativeId), target.index].join(':');
}
