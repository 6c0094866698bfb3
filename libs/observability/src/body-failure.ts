/** Why the body parser refused a request body, without its internal message. */
export type BodyFailure =
  | { readonly kind: 'unparsable'; readonly raw?: string }
  | { readonly kind: 'too_large'; readonly limit?: number }
  | { readonly kind: 'unsupported_encoding' }
  | { readonly kind: 'unreadable' };

interface BodyParserError {
  readonly type: string;
  readonly body?: unknown;
  readonly limit?: unknown;
}

const isBodyParserError = (value: unknown): value is BodyParserError =>
  typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string' &&
  /^(entity|request|encoding|charset|parameters|stream)\./.test((value as { type: string }).type);

/**
 * Recognises a failure of the body parser (express / body-parser), which Nest hands to the filters
 * wrapped in an HttpException whose message is the parser's own ("Unexpected token ..."): never shown.
 */
export function bodyFailureOf(exception: unknown): BodyFailure | undefined {
  const cause = isBodyParserError(exception) ? exception : (exception as { cause?: unknown } | undefined)?.cause;
  if (!isBodyParserError(cause)) return undefined;
  switch (cause.type) {
    case 'entity.parse.failed':
      return { kind: 'unparsable', ...(typeof cause.body === 'string' ? { raw: cause.body } : {}) };
    case 'entity.too.large':
    case 'parameters.too.many':
      return { kind: 'too_large', ...(typeof cause.limit === 'number' ? { limit: cause.limit } : {}) };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { kind: 'unsupported_encoding' };
    default:
      return { kind: 'unreadable' };
  }
}
