import { Inject, Injectable } from '@nestjs/common';
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type CacheHint, type ReadResourceResult, type ResourceTemplateType } from '@modelcontextprotocol/server';
import { APP_CONFIG } from '@adintel/config';
import { ServiceError } from '@adintel/contracts';
import { describeCost, MEDIA_FILE, REST_PREFIX } from '@adintel/tool-catalogue';
import type { Caller } from '../auth/caller';
import type { AppConfig } from '../config';
import { checkIdempotencyKey, MCP_IDEMPOTENCY_META } from '../idempotency/idempotency-key';
import { receiptFields } from '../invocation/receipt';
import { invalidArguments, problemFromServiceError, renderProblem, type ProblemSpec } from '../problems/problem';
import { collectWhole } from './media-files';
import { MediaService } from './media.service';
import { MEDIA_FILE_PATH, MEDIA_THUMBNAIL_PATH, targetOfUrl } from './media-target';

/**
 * The most bytes one resources/read carries (base64 in one JSON-RPC answer): every image fits (ingest takes images up
 * to 10 MB); a larger video is refused before it is charged and is downloaded from its URL instead, with Range.
 */
export const MCP_MEDIA_MAX_BYTES = 10 * 1024 * 1024;

/**
 * The most file bytes all resources/read answers of this process hold at once. A JSON-RPC answer is one message: the
 * SDK serialises the whole result (the base64 string, 4/3 of the file, then the JSON text), so an answer cannot be
 * streamed or sent in parts; what can be bounded is how many are held. 4 files of the largest size at once, beyond
 * which a read is answered busy (429 in `data`, `retry_after_seconds` 1) before anything is charged.
 */
export const MCP_MEDIA_HELD_BYTES = 4 * MCP_MEDIA_MAX_BYTES;

/** The 2026-07-28 cache fields of an answer that depends on the caller (CacheHint of the SDK). */
const PER_CALLER: Required<CacheHint> = { ttlMs: 0, cacheScope: 'private' };

export interface MediaReadContext {
  /** The request's `_meta` (an `idempotency_key` may be in it, as in tools/call). */
  readonly meta: Record<string, unknown> | undefined;
  /** A 2026-07-28 request (it carried the `_meta` envelope): only that era's answers carry cache fields. */
  readonly modern: boolean;
  readonly caller: Caller;
  readonly requestId: string;
}

/** A JSON-RPC server error (the implementation-defined range) carrying the REST problem of a 4xx, e.g. a 402. */
const MEDIA_READ_FAILED = -32000;

/**
 * MCP `resources/read` of a media file: the resource URI is the media entry's `url` (the https URL REST serves), so
 * a `resource_link` to it can be read. Charged like the REST file (one MediaService), with the receipt in `_meta`
 * like a tool's; a thumbnail URL reads free. The answer is per caller: `private`, `ttlMs` 0 (2026-07-28 cache hint).
 */
@Injectable()
export class MediaResources {
  readonly templates: ResourceTemplateType[];
  private heldBytes = 0;

  constructor(
    private readonly media: MediaService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const base = `${config.PUBLIC_BASE_URL}${REST_PREFIX}`;
    this.templates = [
      {
        uriTemplate: `${base}${MEDIA_FILE_PATH}`,
        name: 'creative-media-file',
        title: 'Creative media file',
        description: `Media file n of a creative (the \`url\` of a media entry of get_ad/get_creative): ${describeCost(MEDIA_FILE.cost)}, once per file per UTC day; files over ${MCP_MEDIA_MAX_BYTES} bytes are downloaded from the URL instead.`,
      },
      {
        uriTemplate: `${base}${MEDIA_THUMBNAIL_PATH}`,
        name: 'creative-media-thumbnail',
        title: 'Creative media thumbnail',
        description: 'Thumbnail of media file n of a creative (the `thumbnail_url` of a media entry): free, WebP, at most 256 px a side.',
      },
    ];
  }

  /** Whether `uri` is one of this service's media URLs (else another kind of resource, e.g. a `ui://` view). */
  handles(uri: string): boolean {
    return targetOfUrl(this.config.PUBLIC_BASE_URL, uri) !== undefined;
  }

  async read(uri: string, { meta, modern, caller, requestId }: MediaReadContext): Promise<ReadResourceResult> {
    const parsed = targetOfUrl(this.config.PUBLIC_BASE_URL, uri);
    if (!parsed || (!parsed.ok && parsed.notFound)) throw new ResourceNotFoundError(uri, `no media at ${JSON.stringify(uri)}`);
    if (!parsed.ok) throw this.failure(ProtocolErrorCode.InvalidParams, invalidArguments(parsed.errors), requestId);
    const idempotency = checkIdempotencyKey(meta?.[MCP_IDEMPOTENCY_META]);
    if (!idempotency.ok) {
      throw this.failure(ProtocolErrorCode.InvalidParams, invalidArguments([{ field: `_meta.${MCP_IDEMPOTENCY_META}`, message: idempotency.message }]), requestId);
    }

    let answer;
    try {
      answer = await this.media.serve({
        target: parsed.target,
        caller,
        requestId,
        idempotencyKey: idempotency.key,
        maxBytes: MCP_MEDIA_MAX_BYTES,
        holdBytes: (size) => this.hold(size),
      });
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      if (error.code === 'not_found') throw new ResourceNotFoundError(uri, error.message);
      const code = error.code === 'invalid_argument' ? ProtocolErrorCode.InvalidParams : error.status >= 500 ? ProtocolErrorCode.InternalError : MEDIA_READ_FAILED;
      throw this.failure(code, problemFromServiceError(error), requestId);
    }
    if (answer.kind !== 'body') throw new Error(`a whole-file read answered ${answer.kind}`);
    let blob: string;
    try {
      blob = (await collectWhole(answer.body, answer.head.size)).toString('base64');
    } finally {
      // The budget covers the file until it is base64; the SDK's own serialisation of the answer follows at once.
      answer.release();
    }
    const result: ReadResourceResult = {
      contents: [{ uri, mimeType: answer.head.mime, blob }],
      _meta: { ...receiptFields(answer.receipt), request_id: requestId },
    };
    // Per caller and charged: never shared, never reused without asking (the server's per-method hint is the views').
    return modern ? { ...result, ...PER_CALLER } : result;
  }

  /** Takes `size` bytes of MCP_MEDIA_HELD_BYTES, or null when they are not free; the function gives them back once. */
  private hold(size: number): (() => void) | null {
    if (this.heldBytes > 0 && this.heldBytes + size > MCP_MEDIA_HELD_BYTES) return null;
    this.heldBytes += size;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.heldBytes -= size;
    };
  }

  private failure(code: number, spec: ProblemSpec, requestId: string): ProtocolError {
    const problem = renderProblem(spec, { baseUrl: this.config.PUBLIC_BASE_URL, instance: '/mcp#resources/read', requestId });
    return new ProtocolError(code, problem.detail, problem);
  }
}

