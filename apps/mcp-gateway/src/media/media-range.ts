import fresh from 'fresh';
import rangeParser from 'range-parser';

/**
 * The HTTP `Range` header of a media request (RFC 9110 §14), resolved against the file's size (the media store's
 * stat) by `range-parser`, Express's own parser. One range is served as a 206. Several ranges are answered with the
 * whole file (a 200, which RFC 9110 allows: a server may ignore Range) unless they merge into one: players ask one
 * range at a time, and a multipart/byteranges body would be a second body format for no caller here; the file costs
 * the same either way. A header we cannot read, or a range none of the file holds, is a 416 naming why, so a caller
 * never pays for bytes it did not ask for.
 */
export type RangeAnswer =
  /** No Range header, or several ranges: the whole file (a 200). */
  | { readonly kind: 'whole' }
  | { readonly kind: 'range'; readonly start: number; readonly end: number }
  /** 416: unreadable, another unit than bytes, or no byte of it in the file. */
  | { readonly kind: 'unsatisfiable'; readonly reason: string };

/** Inclusive byte positions, as in HTTP. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** A suffix range (`bytes=-N`), which RFC 9110 §14.1.2 serves whole when the file is shorter than N. */
const SUFFIX = /^\s*bytes\s*=\s*-\s*(\d{1,15})\s*$/i;

export function rangeOf(header: string | string[] | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'whole' };
  const value = Array.isArray(header) ? header.join(',') : header;
  const parsed = rangeParser(size, value, { combine: true });
  if (parsed === -2) return { kind: 'unsatisfiable', reason: 'must be bytes=start-end, bytes=start- or bytes=-length' };
  if (parsed === -1) {
    // range-parser 1.3 drops a suffix longer than the file; the RFC serves the whole file for it.
    const suffix = SUFFIX.exec(value);
    if (suffix && Number(suffix[1]) > 0 && size > 0) return { kind: 'range', start: 0, end: size - 1 };
    return { kind: 'unsatisfiable', reason: `names no byte of the file (${size} bytes)` };
  }
  if (parsed.type.trim().toLowerCase() !== 'bytes') return { kind: 'unsatisfiable', reason: `the unit must be bytes, not ${JSON.stringify(parsed.type.slice(0, 20))}` };
  const [first, ...more] = parsed;
  if (!first || more.length > 0) return { kind: 'whole' };
  return { kind: 'range', start: first.start, end: first.end };
}

/**
 * `If-None-Match` against the file's strong ETag, by `fresh` (Express's own check: the weak comparison RFC 9110
 * §13.1.2 asks for this header, `*`, lists).
 */
export function etagListed(header: string | undefined, etag: string): boolean {
  return header !== undefined && fresh({ 'if-none-match': header }, { etag: quoteEtag(etag) });
}

export const quoteEtag = (key: string) => `"${key}"`;
