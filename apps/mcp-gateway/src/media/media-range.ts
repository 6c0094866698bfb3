import fresh from 'fresh';

/**
 * The HTTP `Range` header of a media request (RFC 9110 §14). One range is served as a 206. Several ranges are
 * answered with the whole file (a 200, which RFC 9110 allows: a server may ignore Range): players ask one range at
 * a time, and a multipart/byteranges body would be a second body format for no caller here; the file costs the
 * same either way. A header we cannot read is a 416 naming it, so a caller never pays for a file it did not ask for.
 * Parsed here, not by `range-parser`: that resolves a header against a known size, and a `bytes=N-` read is served
 * without asking the file's size first (one Redis round trip less per range a player asks).
 */
export type RangeRequest =
  | { readonly kind: 'whole' }
  | { readonly kind: 'from'; readonly start: number; readonly end?: number }
  | { readonly kind: 'suffix'; readonly length: number }
  | { readonly kind: 'invalid'; readonly reason: string };

/** Inclusive byte positions, as in HTTP. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

const SPEC = /^(?:(\d{1,15})-(\d{0,15})|-(\d{1,15}))$/;

export function parseRange(header: string | string[] | undefined): RangeRequest {
  if (header === undefined) return { kind: 'whole' };
  const value = Array.isArray(header) ? header.join(',') : header;
  const match = /^\s*bytes\s*=\s*(.*)$/i.exec(value);
  if (!match) return { kind: 'invalid', reason: 'must be bytes=start-end, bytes=start- or bytes=-length' };
  const [, list = ''] = match;
  const specs = list.split(',').map((spec) => spec.trim()).filter((spec) => spec !== '');
  const parsed = specs.map(parseSpec);
  const invalid = parsed.find((spec) => spec.kind === 'invalid');
  const [first, ...more] = parsed;
  if (invalid || first === undefined) return invalid ?? { kind: 'invalid', reason: 'names no range' };
  return more.length === 0 ? first : { kind: 'whole' };
}

function parseSpec(spec: string): RangeRequest {
  const match = SPEC.exec(spec);
  if (!match) return { kind: 'invalid', reason: `cannot read the range ${JSON.stringify(spec.slice(0, 40))}` };
  if (match[3] !== undefined) return { kind: 'suffix', length: Number(match[3]) };
  const start = Number(match[1]);
  if (match[2] === '') return { kind: 'from', start };
  const end = Number(match[2]);
  if (end < start) return { kind: 'invalid', reason: `the range ${start}-${end} ends before it starts` };
  return { kind: 'from', start, end };
}

/**
 * The bytes a range asks of a file of `size` bytes (the whole file for `whole`), or null when none of it exists
 * (starts past the end, or an empty suffix): a 416.
 */
export function resolveRange(range: Exclude<RangeRequest, { kind: 'invalid' }>, size: number): ByteRange | null {
  switch (range.kind) {
    case 'whole':
      return size === 0 ? null : { start: 0, end: size - 1 };
    case 'from':
      return range.start >= size ? null : { start: range.start, end: Math.min(range.end ?? size - 1, size - 1) };
    case 'suffix':
      return range.length === 0 || size === 0 ? null : { start: Math.max(0, size - range.length), end: size - 1 };
  }
}

/**
 * `If-None-Match` against the file's strong ETag, by `fresh` (Express's own check: the weak comparison RFC 9110
 * §13.1.2 asks for this header, `*`, lists).
 */
export function etagListed(header: string | undefined, etag: string): boolean {
  return header !== undefined && fresh({ 'if-none-match': header }, { etag: quoteEtag(etag) });
}

export const quoteEtag = (key: string) => `"${key}"`;
