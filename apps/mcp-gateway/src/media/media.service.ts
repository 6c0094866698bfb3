import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import { MEDIA_MIME_TYPES, ServiceError, type MediaFile } from '@adintel/contracts';
import { actualCost, MEDIA_FILE, worstCaseCost } from '@adintel/tool-catalogue';
import type { Caller } from '../auth/caller';
import type { AppConfig } from '../config';
import { nothingCharged, type Receipt } from '../invocation/receipt';
import { ToolInvoker } from '../invocation/tool-invoker.service';
import { MediaFilesClient } from './media-files.client';
import { MediaPassRepository } from './media-pass.repository';
import { etagListed, resolveRange, type ByteRange, type RangeRequest } from './media-range';

/** A creative's media entry `index`: its file, or its thumbnail (free: it rides with the record). */
export interface MediaTarget {
  readonly creativeId: string;
  readonly index: number;
  readonly variant: 'file' | 'thumbnail';
}

export interface MediaRequest {
  readonly target: MediaTarget;
  readonly caller: Caller;
  readonly requestId: string;
  readonly idempotencyKey?: string;
  readonly range: RangeRequest;
  readonly ifNoneMatch?: string;
  /** HEAD: the headers only, free. */
  readonly headOnly?: boolean;
  /** The most bytes the caller can take (MCP resources/read); a larger file is refused before it is charged. */
  readonly maxBytes?: number;
}

/** What the file is, whatever part of it travels. */
export interface MediaHead {
  readonly mime: (typeof MEDIA_MIME_TYPES)[number];
  /** The whole file's size. */
  readonly size: number;
  /** The content key: the file's strong validator. */
  readonly etag: string;
}

export type MediaAnswer =
  | { readonly kind: 'not_modified'; readonly head: MediaHead; readonly receipt: Receipt }
  | { readonly kind: 'head'; readonly head: MediaHead; readonly receipt: Receipt }
  /** A caller asked a range none of the file holds, or a Range header we cannot read: 416. */
  | { readonly kind: 'unsatisfiable'; readonly size?: number; readonly reason: string }
  | {
      readonly kind: 'body';
      readonly head: MediaHead;
      /** The bytes sent, or null: the whole file (a 200). */
      readonly range: ByteRange | null;
      readonly length: number;
      /** The bytes, in parts of at most MEDIA_CHUNK_BYTES (query-api's bound per answer), read as they are sent. */
      readonly body: AsyncIterable<Buffer>;
      readonly receipt: Receipt;
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
 * HEAD, a 304 and a 416 are free.
 */
@Injectable()
export class MediaService {
  private readonly logger = new Logger('Media');

  constructor(
    private readonly files: MediaFilesClient,
    private readonly passes: MediaPassRepository,
    private readonly invoker: ToolInvoker,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'TRANSPORT_TIMEOUT_MS' | 'SETTLE_ATTEMPTS'>,
  ) {}

  async serve(request: MediaRequest): Promise<MediaAnswer> {
    const { range } = request;
    if (range.kind === 'invalid') return { kind: 'unsatisfiable', reason: range.reason };

    // The file's type, size and key before any charge: one byte read, free. Needed to answer HEAD and a 304, to
    // place a suffix range, and to refuse a file larger than the caller can take.
    const needsHead = request.headOnly || request.ifNoneMatch !== undefined || range.kind === 'suffix' || request.maxBytes !== undefined;
    const known = needsHead ? await this.head(request.target) : undefined;
    if (known && etagListed(request.ifNoneMatch, known.etag)) return { kind: 'not_modified', head: known, receipt: nothingCharged() };
    if (known && request.headOnly) return { kind: 'head', head: known, receipt: nothingCharged() };
    if (known && request.maxBytes !== undefined && known.size > request.maxBytes) {
      throw ServiceError.invalidArgument([
        { field: 'uri', message: `the file is ${known.size} bytes, over the ${request.maxBytes}-byte bound of this read: download it from its URL (Range supported)` },
      ]);
    }

    // The first part read (the paid step); a range is resolved against the size once known.
    let wanted: ByteRange | undefined;
    if (range.kind !== 'whole') {
      if (known) {
        const resolved = resolveRange(range, known.size);
        if (!resolved) return { kind: 'unsatisfiable', size: known.size, reason: 'the range starts past the end of the file' };
        wanted = resolved;
      } else if (range.kind === 'from') {
        wanted = { start: range.start, end: range.end ?? Number.MAX_SAFE_INTEGER };
      }
    }
    const readFirst = () => this.read(request.target, wanted);

    let first: MediaFile;
    let receipt: Receipt;
    try {
      ({ first, receipt } = request.target.variant === 'thumbnail' ? { first: await readFirst(), receipt: nothingCharged() } : await this.paidRead(request, readFirst));
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'invalid_argument' && error.payload.errors?.some((e) => e.field === 'range')) {
        return { kind: 'unsatisfiable', size: (await this.head(request.target)).size, reason: 'the range starts past the end of the file' };
      }
      throw error;
    }

    const head = headOf(first);
    const sent = first.range ?? { start: 0, end: first.size - 1 };
    const last = wanted ? Math.min(wanted.end, head.size - 1) : head.size - 1;
    return {
      kind: 'body',
      head,
      range: range.kind === 'whole' ? null : { start: sent.start, end: last },
      length: last - sent.start + 1,
      body: this.parts(request.target, first, last),
      receipt,
    };
  }

  /** The first part, then the rest of the asked bytes part by part (free: the file is paid for). */
  private async *parts(target: MediaTarget, first: MediaFile, last: number): AsyncGenerator<Buffer> {
    yield Buffer.from(first.body_base64, 'base64');
    let next = (first.range?.end ?? first.size - 1) + 1;
    while (next <= last) {
      const part = await this.read(target, { start: next, end: last });
      // The same file throughout: a file replaced between parts would splice two files into one answer.
      if (part.etag !== first.etag || !part.range) throw new Error(`media ${target.creativeId}/${target.index} changed while it was being sent`);
      yield Buffer.from(part.body_base64, 'base64');
      next = part.range.end + 1;
    }
  }

  /**
   * A full file: free when the caller paid for it today (the pass), else charged through ToolInvoker (reserve,
   * read, settle; released if the read fails; an Idempotency-Key replay is free). A request of the same caller
   * already paying for this file is waited for rather than paid twice.
   */
  private async paidRead(request: MediaRequest, readFirst: () => Promise<MediaFile>): Promise<{ first: MediaFile; receipt: Receipt }> {
    const { target, caller } = request;
    const day = new Date().toISOString().slice(0, 10);
    const pass = [day, encodeURIComponent(caller.sub), encodeURIComponent(target.creativeId), target.index].join(':');
    const token = `claim:${request.requestId}:${randomBytes(6).toString('base64url')}`;
    const deadline = Date.now() + PASS_WAIT_MS;
    for (;;) {
      const claim = await this.passes.claim(pass, token, this.claimSeconds());
      if (claim === 'claimed') break;
      if (claim === 'paid') return { first: await readFirst(), receipt: nothingCharged() };
      if (Date.now() >= deadline) {
        throw ServiceError.of('conflict', 'another request of yours is paying for this file: retry in a moment', { retry_after_seconds: 1 });
      }
      await sleep(PASS_POLL_MS);
    }

    let first: MediaFile | undefined;
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
          first = await readFirst();
          return { etag: first.etag };
        },
        cost: (grant) => actualCost(MEDIA_FILE, grant),
      });
      // A replay may come on a later day: it is free, but it does not buy that day's pass.
      const paid = !outcome.replay && (outcome.receipt.status === 'pending' || outcome.receipt.charged > 0);
      if (paid) await this.keepPass(pass);
      else await this.passes.dropClaim(pass, token);
      return { first: first ?? (await readFirst()), receipt: outcome.receipt };
    } catch (error) {
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

  private async head(target: MediaTarget): Promise<MediaHead> {
    return headOf(await this.read(target, { start: 0, end: 0 }));
  }

  private read(target: MediaTarget, range?: ByteRange): Promise<MediaFile> {
    return this.files.read({ creative_id: target.creativeId, index: target.index, variant: target.variant, ...(range ? { range } : {}) });
  }
}

/** The type comes only from the allowlist (never SVG): anything else from upstream is a fault, not a file to serve. */
function headOf(file: MediaFile): MediaHead {
  if (!(MEDIA_MIME_TYPES as readonly string[]).includes(file.mime)) throw new Error(`query-api answered a media type outside the allowlist: ${file.mime}`);
  return { mime: file.mime, size: file.size, etag: file.etag };
}
