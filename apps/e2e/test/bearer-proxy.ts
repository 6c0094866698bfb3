import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BearerProxy {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A loopback HTTP proxy that adds `Authorization: Bearer <token>` to every request (the conformance CLI has no
 * option for a token). It stands in for the service's public origin: a Host or Origin naming the proxy itself is
 * rewritten to the upstream's, any other value passes through untouched, so the server's DNS-rebinding checks
 * still see a foreign Host or Origin exactly as the client sent it.
 */
export async function startBearerProxy(target: string, token: string): Promise<BearerProxy> {
  const upstream = new URL(target);
  let self = '';
  const server: Server = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (headers.host === new URL(self).host) headers.host = upstream.host;
    if (headers.origin === self) headers.origin = upstream.origin;
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', (error) => res.writeHead(502).end(error.message));
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: self,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
