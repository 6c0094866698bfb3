/**
 * A DOUBLE of S3, for tests only: no S3-compatible server runs on these machines. It answers the four calls the media
 * store makes (HeadBucket, PutObject, HeadObject, GetObject with Range) over real HTTP in path style
 * (`/<bucket>/<key>`), keeps objects in memory, and ignores signatures. The real `@aws-sdk/client-s3` talks to it, so
 * the request the SDK builds and the answers it parses are exercised; S3's own behaviour beyond these calls is not.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface S3Double {
  endpoint: string;
  bucket: string;
  objects: Map<string, { body: Buffer; contentType: string }>;
  requests: { method: string; path: string; range: string | null }[];
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startS3Double(bucket = 'adintel-media-test'): Promise<S3Double> {
  const objects = new Map<string, { body: Buffer; contentType: string }>();
  const requests: S3Double['requests'] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://double');
      const [, bucketName = '', ...rest] = url.pathname.split('/');
      const key = decodeURIComponent(rest.join('/'));
      requests.push({ method: request.method ?? '', path: url.pathname, range: request.headers.range ?? null });
      const raw = await bodyOf(request);
      // A streamed upload (a file body) comes aws-chunked, with its checksum in a trailer, as S3 itself accepts it.
      const body = String(request.headers['content-encoding'] ?? '').includes('aws-chunked') ? unchunk(raw) : raw;
      if (bucketName !== bucket) {
        response.writeHead(404, { 'content-type': 'application/xml' }).end('<Error><Code>NoSuchBucket</Code></Error>');
        return;
      }
      if (!key) {
        response.writeHead(200).end();
        return;
      }
      if (request.method === 'PUT') {
        objects.set(key, { body, contentType: String(request.headers['content-type'] ?? 'application/octet-stream') });
        response.writeHead(200, { etag: '"x"' }).end();
        return;
      }
      const object = objects.get(key);
      if (!object) {
        response.writeHead(404, { 'content-type': 'application/xml' });
        response.end(request.method === 'HEAD' ? undefined : '<Error><Code>NoSuchKey</Code><Message>no such key</Message></Error>');
        return;
      }
      const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? '');
      if (range) {
        const start = Number(range[1]);
        const end = Math.min(Number(range[2]), object.body.length - 1);
        const part = object.body.subarray(start, end + 1);
        response.writeHead(206, {
          'content-type': object.contentType,
          'content-length': part.length,
          'content-range': `bytes ${start}-${end}/${object.body.length}`,
        });
        response.end(request.method === 'HEAD' ? undefined : part);
        return;
      }
      response.writeHead(200, { 'content-type': object.contentType, 'content-length': object.body.length });
      response.end(request.method === 'HEAD' ? undefined : object.body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    objects,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The payload of an `aws-chunked` body: `<hex size>[;...]\r\n<data>\r\n` chunks up to a 0-size one (then trailers). */
function unchunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    const size = parseInt(raw.toString('latin1', at, lineEnd).split(';')[0] ?? '0', 16);
    if (!size) return Buffer.concat(parts);
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
