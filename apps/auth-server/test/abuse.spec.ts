import { randomBytes } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import type { AppProcess } from '@adintel/testing';
import { authServerEnv, basic, CONTRACT_REGISTRATION, removeTestState, register, startAuthServer } from './e2e/support';

const PARSER_INTERNALS = /Unexpected token|Unexpected end|SyntaxError|" is not valid JSON|position \d+|entity/i;

/** An auth server process for the enclosing describe, with its Redis keys and data directory removed afterwards. */
function authServerFor(extraEnv: Record<string, string>): () => AppProcess {
  let app: AppProcess | undefined;
  let env: Awaited<ReturnType<typeof authServerEnv>> | undefined;
  beforeAll(async () => {
    env = await authServerEnv(extraEnv);
    app = await startAuthServer(env);
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    if (env) await removeTestState(env);
  });
  return () => {
    if (!app) throw new Error('the auth server did not start');
    return app;
  };
}

/** The auth server as a real process, attacked the way issue 12 found it open. */
describe('auth-server abuse limits', () => {
  const server = authServerFor({ TOKEN_FAILURES_PER_CLIENT: '3', TOKEN_FAILURES_PER_IP: '6', LOG_LEVEL: 'info' });
  const base = () => server().url;
  const ip = () => `10.77.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

  describe('redirect URIs (OAuth 2.1: https or loopback)', () => {
    const interactive = (redirect: string) => ({
      client_name: 'public-app',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      redirect_uris: [redirect],
    });

    it.each(['http://evil.example/cb', 'javascript:alert(1)', 'com.example.app:/cb', 'https://app.example/cb#frag'])('refuses %s', async (uri) => {
      const { res, body } = await register(base(), interactive(uri), ip());
      expect(res.status).toBe(400);
      expect(body).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringContaining('redirect_uris') });
    });

    it.each(['https://app.example/cb', 'http://127.0.0.1:7777/cb', 'http://[::1]:7777/cb', 'http://localhost:7777/cb'])('accepts %s', async (uri) => {
      expect((await register(base(), interactive(uri), ip())).res.status).toBe(201);
    });
  });

  describe('registration bodies', () => {
    const post = (body: string) =>
      fetch(`${base()}/oauth2/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': ip() }, body });

    it('answers a 1 MB body with 413', async () => {
      const res = await post(JSON.stringify({ ...CONTRACT_REGISTRATION, client_name: 'x'.repeat(1_000_000) }));
      expect(res.status).toBe(413);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ error: 'invalid_request' });
      expect(text).not.toMatch(PARSER_INTERNALS);
    });

    it('answers broken JSON with 400 and without the parser message', async () => {
      const res = await post('{"client_name": ');
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ error: 'invalid_request', error_description: 'the request body is not valid JSON' });
      expect(text).not.toMatch(PARSER_INTERNALS);
    });
  });

  describe('failed client authentication at the token endpoint', () => {
    const tokenRequest = (authorization: string, from: string) =>
      fetch(`${base()}/oauth2/token`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': from },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:read' }).toString(),
      });

    it('pauses an address that guesses across many client ids', async () => {
      const from = ip();
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await tokenRequest(basic(`no-such-client-${i}`, 'guess'), from)).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429]);
      // Another address is not affected.
      expect((await tokenRequest(basic('no-such-client-x', 'guess'), ip())).status).toBe(401);
    });
  });

  it('listens on loopback only by default', async () => {
    const app = server();
    const listening = app.output
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; host?: string })
      .find((line) => line.msg === 'listening');
    expect(listening?.host).toBe('127.0.0.1');
    const external = Object.values(networkInterfaces()).flat().find((i) => i && !i.internal && i.family === 'IPv4');
    if (external) {
      await expect(fetch(`http://${external.address}:${app.port}/healthz`, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
    }
  });
});

describe('auth-server behind a proxy it does not trust', () => {
  // The test connects from loopback, which is not the configured proxy: X-Forwarded-For must be ignored.
  const server = authServerFor({ TRUSTED_PROXIES: '192.0.2.10', REGISTRATION_LIMIT_PER_HOUR: '2' });

  it('counts registrations per connecting address whatever X-Forwarded-For says', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await register(server().url, CONTRACT_REGISTRATION, `198.51.100.${i + 1}`)).res.status);
    expect(statuses).toEqual([201, 201, 429, 429]);
  });
});
