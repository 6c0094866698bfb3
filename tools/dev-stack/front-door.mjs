// A streaming reverse proxy for local runs: one public origin, routed by routes.mjs.
import { createServer, request } from 'node:http';
import { appFor } from './routes.mjs';

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer'];

/** `upstreams` maps an app name to its base URL, e.g. { 'mcp-gateway': 'http://127.0.0.1:3002' }. */
export function createFrontDoor(upstreams) {
  return createServer((req, res) => {
    const app = appFor(new URL(req.url ?? '/', 'http://front-door').pathname);
    if (!app || !upstreams[app]) return problem(res, 404, 'Not Found', `nothing is served at ${req.url}`);
    const target = new URL(upstreams[app]);
    const headers = { ...req.headers };
    for (const name of HOP_BY_HOP) delete headers[name];
    headers['x-forwarded-host'] = req.headers.host ?? '';
    headers['x-forwarded-proto'] = 'http';
    // One trusted hop: the caller's own X-Forwarded-For is dropped, never passed on, so the apps (which trust only
    // this proxy's address, TRUSTED_PROXIES) see the address that connected here and nothing a caller wrote.
    headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (upstreamRes) => {
        const responseHeaders = { ...upstreamRes.headers };
        for (const name of HOP_BY_HOP) delete responseHeaders[name];
        res.writeHead(upstreamRes.statusCode ?? 502, responseHeaders);
        upstreamRes.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      if (res.headersSent) return void res.destroy();
      // What the front door saw, for whoever must judge whether the app took the request: a refused connection
      // never carried it; a reset of a kept-alive connection (Node's `reusedSocket`) is what a draining app does
      // to a connection it held idle as the request arrived, and also what a crash mid-request looks like.
      problem(res, 503, 'Service Unavailable', `${app} is not answering`, { 'retry-after': '5' }, {
        upstream_error: error.code ?? error.message,
        reused_connection: upstream.reusedSocket,
      });
    });
    req.pipe(upstream);
  });
}

/**
 * The front door listening on `port`: on loopback unless `host` names another address (`npm start` takes
 * PUBLIC_HOST; the compose edge, which only containers reach, 0.0.0.0).
 */
export function listenFrontDoor(upstreams, port, host = '127.0.0.1') {
  return createFrontDoor(upstreams).listen(port, host);
}

function problem(res, status, title, detail, headers = {}, extensions = {}) {
  res.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
  res.end(JSON.stringify({ type: 'about:blank', title, status, detail, ...extensions }));
}
