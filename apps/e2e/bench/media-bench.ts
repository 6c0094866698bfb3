/**
 * Media benchmark (not a test): the thumbnail route of the built stack (GET /api/v1/creo/{id}/media/{n}/thumbnail,
 * straight at the gateway with a bearer token) side by side with a bare static file server (Node `http` + `fs`,
 * reading each file from disk per request) serving the same thumbnails, each driven by autocannon over the same
 * files in turn, at 1 and 16 connections, measured alternately in one run. Prints req/s and latency per case, the
 * ratio route/bare, and the load average.
 * Run: npx nx run e2e:media-bench [-- --duration=10 --files=20 --connections=1,16]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { getJson, newAgentToken } from '../test/agent';
import { startStack } from '../test/stack';
import { drive } from './drive';

const out = (line: string) => process.stdout.write(`${line}\n`);

async function main() {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      files: { type: 'string', default: '20' },
      connections: { type: 'string', default: '1,16' },
    },
  });
  const seconds = Number(values.duration);
  const wanted = Number(values.files);
  const connectionCounts = String(values.connections).split(',').map(Number);

  const stack = await startStack();
  const dir = mkdtempSync(join(tmpdir(), 'media-bench-'));
  const bare = await startStaticServer(dir);
  try {
    const { token } = await newAgentToken(stack.baseUrl);
    const gateway = stack.apps['mcp-gateway'].url;
    // The thumbnails of the first creatives with a picture, as the route serves them and as files for the bare server.
    const paths: string[] = [];
    const { body } = await getJson(stack.baseUrl, token, '/api/v1/creo?limit=100&fields=id');
    for (const { id } of body['data'] as { id: string }[]) {
      const creative = (await getJson(stack.baseUrl, token, `/api/v1/creo/${encodeURIComponent(id)}`)).body as { media: { thumbnail_url: string | null }[] };
      const url = creative.media[0]?.thumbnail_url;
      if (!url) continue;
      const path = new URL(url).pathname;
      const res = await fetch(`${gateway}${path}`, { headers: { authorization: `Bearer ${token}` } });
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      writeFileSync(join(dir, `${paths.length}.webp`), Buffer.from(await res.arrayBuffer()));
      paths.push(path);
      if (paths.length === wanted) break;
    }
    out(`# ${paths.length} thumbnails; load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    out('| case | connections | req/s | p50 ms | p95 ms | MB/s | errors |');
    out('|---|---|---|---|---|---|---|');
    const ratios: string[] = [];
    for (const connections of connectionCounts) {
      const route = await drive({ name: 'thumbnail route', url: gateway, paths, headers: { authorization: `Bearer ${token}` } }, connections, seconds);
      const file = await drive({ name: 'bare static server', url: bare.url, paths: paths.map((_p, i) => `/${i}.webp`) }, connections, seconds);
      for (const [name, r] of [['thumbnail route', route], ['bare static server', file]] as const) {
        out(`| ${name} | ${connections} | ${r.requestsPerSecond.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p95.toFixed(2)} | ${(r.bytesPerSecond / 1e6).toFixed(1)} | ${r.errors} |`);
      }
      ratios.push(`${connections} connections: route/bare = 1/${(file.requestsPerSecond / route.requestsPerSecond).toFixed(1)}`);
    }
    for (const line of ratios) out(`# ${line}`);
    out(`# load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    await bare.stop();
    rmSync(dir, { recursive: true, force: true });
    await stack.stop();
  }
}

/** The machine's ceiling for these files: Node `http` reading each from disk per request, nothing else. */
async function startStaticServer(dir: string) {
  const server = createServer((req, res) => {
    const name = (req.url ?? '/').slice(1);
    if (!/^\d+\.webp$/.test(name)) {
      res.writeHead(404).end();
      return;
    }
    readFile(join(dir, name)).then(
      (bytes) => res.writeHead(200, { 'content-type': 'image/webp', 'content-length': bytes.length }).end(bytes),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise<void>((closed) => server.close(() => closed())) };
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
