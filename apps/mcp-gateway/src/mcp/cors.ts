import type { Request, Response } from 'express';

/** Request headers a browser-based MCP client sends to /mcp. */
const ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'accept',
  'mcp-protocol-version',
  // The standard headers of the 2026-07-28 revision, which the server checks against the body.
  'mcp-method',
  'mcp-name',
  'mcp-session-id',
  'last-event-id',
  'idempotency-key',
  'x-request-id',
];
/** Response headers such a client may read. */
const EXPOSED_HEADERS = ['mcp-session-id', 'x-request-id', 'www-authenticate'];
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** CORS headers for an allowed Origin (the OriginGuard refuses the others on POST). */
export function allowOrigin(req: Request, res: Response, allowedOrigins: readonly string[]): boolean {
  res.vary('Origin');
  const origin = req.headers.origin;
  if (origin === undefined || !allowedOrigins.includes(origin)) return false;
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS.join(', '));
  return true;
}

/**
 * OPTIONS /mcp: a CORS preflight from an allowed origin gets the methods and headers it may use;
 * anything else learns the allowed methods and no CORS grant (so the browser refuses the call).
 */
export function answerOptions(req: Request, res: Response, allowedOrigins: readonly string[]): void {
  res.setHeader('Allow', 'POST, OPTIONS');
  if (allowOrigin(req, res, allowedOrigins) && req.headers['access-control-request-method']) {
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS.join(', '));
    res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
  }
  res.status(204).end();
}
