import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BareRoute {
  readonly url: string;
  /** The bytes every request is answered with (the REST search_ads answer, captured once). */
  serve(body: Buffer): void;
  stop(): Promise<void>;
}

/** The machine's ceiling for this answer: a Node `http` server that only writes the same bytes back. */
export async function startBareRoute(): Promise<BareRoute> {
  let body: Buffer = Buffer.alloc(0);
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    serve: (bytes) => (body = bytes),
    stop: () => new Promise((closed) => server.close(() => closed())),
  };
}
