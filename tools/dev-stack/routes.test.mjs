import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { appFor } from './routes.mjs';
import { createFrontDoor } from './front-door.mjs';

test('routes each public path to the app the ingress sends it to', () => {
  assert.equal(appFor('/oauth2/token'), 'auth-server');
  assert.equal(appFor('/oauth2/register'), 'auth-server');
  assert.equal(appFor('/.well-known/oauth-authorization-server'), 'auth-server');
  assert.equal(appFor('/account'), 'auth-server');
  assert.equal(appFor('/account/agents'), 'auth-server');
  assert.equal(appFor('/mcp'), 'mcp-gateway');
  assert.equal(appFor('/api/v1/ads'), 'mcp-gateway');
  assert.equal(appFor('/.well-known/oauth-protected-resource'), 'mcp-gateway');
  assert.equal(appFor('/.well-known/oauth-protected-resource/mcp'), 'mcp-gateway');
  assert.equal(appFor('/llms.txt'), 'mcp-gateway');
});

test('matches whole path segments only', () => {
  assert.equal(appFor('/accounts'), undefined);
  assert.equal(appFor('/mcpx'), undefined);
  assert.equal(appFor('/api/v2/ads'), undefined);
  assert.equal(appFor('/'), undefined);
});

test('proxies requests and bodies, adds forwarding headers, and answers 503 for a dead upstream', async () => {
  const upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'yes' });
      res.end(JSON.stringify({ method: req.method, url: req.url, body, host: req.headers['x-forwarded-host'], for: req.headers['x-forwarded-for'] }));
    });
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const door = createFrontDoor({
    'mcp-gateway': `http://127.0.0.1:${upstream.address().port}`,
    'auth-server': 'http://127.0.0.1:1',
  });
  door.listen(0, '127.0.0.1');
  await once(door, 'listening');
  const base = `http://127.0.0.1:${door.address().port}`;
  try {
    // The caller's X-Forwarded-For is replaced by the address that connected, never passed on (one trusted hop).
    const res = await fetch(`${base}/mcp?x=1`, { method: 'POST', body: '{"a":1}', headers: { 'x-forwarded-for': '203.0.113.7' } });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('x-upstream'), 'yes');
    assert.deepEqual(await res.json(), { method: 'POST', url: '/mcp?x=1', body: '{"a":1}', host: new URL(base).host, for: '127.0.0.1' });

    const dead = await fetch(`${base}/oauth2/token`, { method: 'POST' });
    assert.equal(dead.status, 503);
    assert.equal(dead.headers.get('retry-after'), '5');
    // Nothing listens on port 1: the problem says the connection was refused, on a new connection.
    assert.deepEqual(await dead.json(), {
      type: 'about:blank',
      title: 'Service Unavailable',
      status: 503,
      detail: 'auth-server is not answering',
      upstream_error: 'ECONNREFUSED',
      reused_connection: false,
    });

    const unknown = await fetch(`${base}/nothing`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.headers.get('content-type'), 'application/problem+json');
  } finally {
    door.close();
    upstream.close();
  }
});
