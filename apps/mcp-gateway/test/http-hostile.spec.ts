import { TOOLS } from '@adintel/tool-catalogue';
import { TestIssuer } from './support/test-issuer';
import { fakeMetering, fakeQuery } from './support/fake-backends';
import { startGateway, TEST_BASE_URL, type Gateway } from './support/gateway-harness';

const PARSER_INTERNALS = /Unexpected token|Unexpected end|SyntaxError|" is not valid JSON|position \d+|request entity/i;

describe('hostile HTTP at the gateway: inherited names, oversized and broken bodies, OPTIONS /mcp', () => {
  let issuer: TestIssuer;
  let gateway: Gateway;
  let token: string;

  beforeAll(async () => {
    issuer = await TestIssuer.start(TEST_BASE_URL);
    gateway = await startGateway({ jwksUrl: issuer.jwksUrl, query: fakeQuery(3), metering: fakeMetering().service });
    token = await issuer.token({ sub: 'hostile-agent' });
  });
  afterAll(async () => {
    await gateway.close();
    await issuer.close();
  });

  /** Every tool's REST path with its path parameters filled with a plausible value. */
  const restPaths = TOOLS.map((tool) => tool.http.path.replace(/\{([^}]+)\}/g, (_m, name: string) => (name === 'dimension' ? 'geo' : name === 'field' ? 'country' : 'x1')));

  it.each(['toString', 'hasOwnProperty', 'constructor', '__proto__', 'valueOf'])(
    'answers ?%s=1 on every REST path with a 400 naming the parameter, never a 500',
    async (name) => {
      for (const path of restPaths) {
        const res = await fetch(`${gateway.url}/api/v1${path}?${name}=1`, { headers: { authorization: `Bearer ${token}` } });
        const body = (await res.json()) as { errors?: { field: string }[] };
        expect({ path, status: res.status }).toEqual({ path, status: 400 });
        expect(body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: name })]));
      }
    },
  );

  it('answers an oversized body on /mcp with 413', async () => {
    const res = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1_000_000) } }),
    });
    expect(res.status).toBe(413);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(text).not.toMatch(PARSER_INTERNALS);
  });

  it('answers a broken JSON body on a REST path without the parser message', async () => {
    const res = await fetch(`${gateway.url}/api/v1/ads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"q": ',
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ status: 400, code: 'invalid_body' });
    expect(text).not.toMatch(PARSER_INTERNALS);
  });

  it('answers a CORS preflight from an allowed origin on OPTIONS /mcp', async () => {
    const res = await fetch(`${gateway.url}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')).toContain('authorization');
  });

  it('grants nothing to a preflight from another origin, and answers a plain OPTIONS with Allow', async () => {
    const foreign = await fetch(`${gateway.url}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(foreign.status).toBe(204);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    const plain = await fetch(`${gateway.url}/mcp`, { method: 'OPTIONS' });
    expect(plain.status).toBe(204);
    expect(plain.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('lets an allowed browser origin read the answer of a POST', async () => {
    const res = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, origin: 'http://localhost:3000', 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
  });
});
