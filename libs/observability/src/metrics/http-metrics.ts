import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Counter, Histogram } from 'prom-client';

type Next = (err?: unknown) => void;
type RoutedRequest = IncomingMessage & { route?: { path?: unknown }; baseUrl?: string };

/**
 * The route label of a finished request: the matched route template (`/api/v1/ads/:id`), never the raw
 * path, so ids and typos cannot multiply the series. Requests served outside Nest's router (the OAuth
 * provider mounted under /oauth2) are labelled by their first segment; a 404 is 'unmatched'.
 */
export function routeLabel(req: RoutedRequest, status: number): string {
  if (typeof req.route?.path === 'string') return `${req.baseUrl ?? ''}${req.route.path}`;
  if (status === 404) return 'unmatched';
  const [path = ''] = (req.url ?? '/').split('?', 1);
  const segment = path.split('/')[1];
  return segment ? `/${segment}/*` : '/';
}

/** Express middleware: one count and one latency sample per answered request. */
export function httpMetrics(requests: Counter<string>, durations: Histogram<string>) {
  return (req: RoutedRequest, res: ServerResponse, next: Next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const labels = { method: req.method ?? 'GET', route: routeLabel(req, res.statusCode), status: String(res.statusCode) };
      requests.inc(labels);
      durations.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
