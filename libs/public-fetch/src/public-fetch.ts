import ipaddr from 'ipaddr.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { checkAddress, guardedLookup } from './address-guard';

export interface PublicFetchOptions {
  /** Whole request, connection to last byte. */
  readonly timeoutMs: number;
  /** Larger answers are refused (by Content-Length before reading, else when the body passes it); a call may ask less. */
  readonly maxBytes: number;
  /**
   * TEST ONLY: also reach loopback addresses (a test's local HTTP server). Every other private or reserved address is
   * refused either way.
   */
  readonly allowLoopback?: boolean;
}

/** What one call accepts: media types (without parameters) the answer's Content-Type must be one of, and its size. */
export interface FetchBounds {
  readonly allowedTypes: readonly string[];
  readonly maxBytes?: number;
}

export type PublicFetchResult =
  | { readonly ok: true; readonly bytes: Buffer; readonly contentType: string }
  | { readonly ok: false; readonly reason: string };

/** What `fetchInto` answers: the body went to the sink, chunk by chunk; here is how much and its type. */
export type PublicStreamResult = { readonly ok: true; readonly size: number; readonly contentType: string } | { readonly ok: false; readonly reason: string };

/**
 * GETs a URL a caller gave, with the guards of a server fetching on someone else's behalf: http(s) only, no user info,
 * public addresses only (an IP literal is checked here, a name in the connection's DNS lookup), no redirects (a 3xx
 * is refused, not followed), a time bound, a size bound and an allowlist of types. Every refusal is a result with its
 * reason, never an exception.
 */
export class PublicFetcher {
  private readonly dispatcher: Agent;

  constructor(private readonly options: PublicFetchOptions) {
    this.dispatcher = new Agent({
      connect: { lookup: guardedLookup(options.allowLoopback ?? false), timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      maxResponseSize: options.maxBytes,
      connections: 4,
    });
  }

  /** The whole body in memory: for small answers (a metadata document, an image of at most 10 MB). */
  async fetch(target: string, bounds: FetchBounds): Promise<PublicFetchResult> {
    const chunks: Buffer[] = [];
    const result = await this.fetchInto(target, bounds, (chunk) => void chunks.push(Buffer.from(chunk)));
    return result.ok ? { ok: true, bytes: Buffer.concat(chunks), contentType: result.contentType } : result;
  }

  /**
   * The body handed to `sink` chunk by chunk as it arrives (a file being written and hashed), never held whole; a
   * body that passes the bound stops there (the sink has then seen part of it: the caller discards it).
   */
  async fetchInto(target: string, bounds: FetchBounds, sink: (chunk: Uint8Array) => void | Promise<void>): Promise<PublicStreamResult> {
    const maxBytes = Math.min(bounds.maxBytes ?? this.options.maxBytes, this.options.maxBytes);
    const url = URL.parse(target);
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) return refuse('not an http(s) URL');
    if (url.username || url.password) return refuse('the URL must not carry user info');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (ipaddr.isValid(host)) {
      const verdict = checkAddress(host, this.options.allowLoopback ?? false);
      if (!verdict.ok) return refuse(`refused address: ${verdict.reason}`);
    }
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    try {
      const response = await undiciFetch(url, { redirect: 'manual', signal, dispatcher: this.dispatcher });
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        return refuse(`answered ${response.status} (a redirect; redirects are not followed)`);
      }
      if (response.status !== 200) {
        await response.body?.cancel();
        return refuse(`answered ${response.status}`);
      }
      const contentType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      if (!bounds.allowedTypes.includes(contentType)) {
        await response.body?.cancel();
        return refuse(`Content-Type ${contentType || 'missing'} is not allowed (${bounds.allowedTypes.join(', ')})`);
      }
      const declared = Number(response.headers.get('content-length') ?? NaN);
      if (declared > maxBytes) {
        await response.body?.cancel();
        return refuse(`larger than ${maxBytes} bytes (Content-Length ${declared})`);
      }
      let size = 0;
      for await (const chunk of response.body ?? []) {
        size += (chunk as Uint8Array).byteLength;
        // Leaving the loop cancels the body (the iterator's return), so the rest is never read.
        if (size > maxBytes) return refuse(`larger than ${maxBytes} bytes`);
        await sink(chunk as Uint8Array);
      }
      return { ok: true, size, contentType };
    } catch (error) {
      if (signal.aborted) return refuse(`no complete answer within ${this.options.timeoutMs} ms`);
      const reason = reasonOf(error);
      // The dispatcher's own bound (maxResponseSize) stopped the body: said as the bound it is.
      if (/exceeded max size/i.test(reason)) return refuse(`larger than ${maxBytes} bytes`);
      return refuse(reason);
    }
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

const refuse = (reason: string) => ({ ok: false, reason }) as const;

/** The innermost message: undici wraps connection failures ("fetch failed") around the reason. */
function reasonOf(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(error);
}
