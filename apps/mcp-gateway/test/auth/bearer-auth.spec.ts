import { TestIssuer } from '../support/test-issuer';
import { fakeMetering, fakeQuery } from '../support/fake-backends';
import { startGateway, TEST_BASE_URL, type Gateway } from '../support/gateway-harness';

const METADATA = `resource_metadata="${TEST_BASE_URL}/.well-known/oauth-protected-resource/mcp"`;

describe('bearer authentication (JWKS served over real HTTP)', () => {
  let issuer: TestIssuer;
  let gateway: Gateway;

  beforeAll(async () => {
    issuer = await TestIssuer.start(TEST_BASE_URL);
    gateway = await startGateway({ jwksUrl: issuer.jwksUrl, query: fakeQuery(), metering: fakeMetering().service });
  });
  afterAll(async () => {
    await gateway.close();
    await issuer.close();
  });

  const call = (token?: string, path = '/api/v1/ads/count') =>
    fetch(`${gateway.url}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

  async function expectRefused(res: Response, status: number, error?: string) {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(METADATA);
    expect(challenge).toContain('scope="mcp:read"');
    if (error) expect(challenge).toContain(`error="${error}"`);
    else expect(challenge).not.toContain('error=');
    return (await res.json()) as { status: number; detail: string };
  }

  it('accepts a valid token', async () => {
    const res = await call(await issuer.token());
    expect(res.status).toBe(200);
  });

  it('answers a missing token with 401 and a challenge pointing at the resource metadata', async () => {
    const body = await expectRefused(await call(), 401);
    expect(body.detail).toContain('audience=http://localhost:3000/mcp');
    await expectRefused(await fetch(`${gateway.url}/api/v1/ads`, { headers: { authorization: 'Basic dTpw' } }), 401);
  });

  it('refuses forged, expired, unsigned, foreign-audience, foreign-issuer and non-access tokens with 401 invalid_token', async () => {
    const cases: [string, string, RegExp][] = [
      ['forged', await issuer.token({ forged: true }), /signature/],
      ['expired', await issuer.token({ expiresInSeconds: -60 }), /expired/],
      ['alg none', issuer.unsignedToken(), /ES256/],
      ['foreign audience', await issuer.token({ audience: 'https://other.example/mcp' }), /audience/],
      ['foreign issuer', await issuer.token({ issuer: 'https://evil.example' }), /issued/],
      ['id token', await issuer.token({ typ: 'JWT' }), /at\+jwt/],
      ['unknown key', await issuer.token({ forged: true, kid: 'nobody' }), /key/],
      ['garbage', 'abc.def.ghi', /malformed/],
    ];
    for (const [name, token, detail] of cases) {
      const body = await expectRefused(await call(token), 401, 'invalid_token');
      expect([name, body.detail]).toEqual([name, expect.stringMatching(detail)]);
    }
  });

  it('answers a token without mcp:read with 403 insufficient_scope', async () => {
    const body = await expectRefused(await call(await issuer.token({ scope: 'openid profile' })), 403, 'insufficient_scope');
    expect(body.status).toBe(403);
  });

  it('answers a malformed Authorization header with 400 invalid_request', async () => {
    await expectRefused(await fetch(`${gateway.url}/api/v1/ads`, { headers: { authorization: 'Bearer a b' } }), 400, 'invalid_request');
  });

  it('refetches the key set when a token names a new kid (key rotation)', async () => {
    await issuer.addKey('key-2');
    const res = await call(await issuer.token());
    expect(res.status).toBe(200);
  });

  it('answers 503 with Retry-After, not 401, when the keys cannot be fetched', async () => {
    await issuer.addKey('key-3'); // unknown to the gateway's cache: it must fetch
    issuer.setAvailable(false);
    try {
      const res = await call(await issuer.token());
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
    } finally {
      issuer.setAvailable(true);
    }
  });

  it('serves RFC 9728 metadata in both forms, naming the audience and the authorization server', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await fetch(`${gateway.url}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        resource: `${TEST_BASE_URL}/mcp`,
        authorization_servers: [TEST_BASE_URL],
        scopes_supported: ['mcp:read'],
        bearer_methods_supported: ['header'],
      });
    }
  });
});
