import type { AppProcess } from '@adintel/testing';
import {
  authServerEnv,
  basic,
  CONTRACT_REGISTRATION,
  CookieJar,
  createOwner,
  decodeJwt,
  removeTestState,
  form,
  hiddenCsrf,
  json,
  pkcePair,
  register,
  startAuthServer,
  verifyEs256,
} from './support';

jest.setTimeout(60_000);

describe('auth-server (built app, real Redis)', () => {
  let env: Awaited<ReturnType<typeof authServerEnv>>;
  let app: AppProcess;
  let base: string;
  let mcp: string;

  beforeAll(async () => {
    env = await authServerEnv({ REGISTRATION_LIMIT_PER_HOUR: '3', LOGIN_MAX_FAILURES: '3' });
    app = await startAuthServer(env);
    base = env.PUBLIC_BASE_URL;
    mcp = `${base}/mcp`;
  });

  afterAll(async () => {
    await app?.stop();
    await removeTestState(env);
  });

  const token = (clientId: string, secret: string, fields: Record<string, string | undefined>) =>
    fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: basic(clientId, secret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined)).toString(),
    });

  it('publishes RFC 8414 metadata at the root, everything under /oauth2', async () => {
    const res = await fetch(`${base}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const metadata = await json(res);
    expect(metadata).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth2/auth`,
      token_endpoint: `${base}/oauth2/token`,
      registration_endpoint: `${base}/oauth2/register`,
      jwks_uri: `${base}/oauth2/jwks`,
      code_challenge_methods_supported: ['S256'],
    });
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']));
    expect(metadata.scopes_supported).toContain('mcp:read');
    expect(metadata.token_endpoint_auth_methods_supported).not.toContain('private_key_jwt');
  });

  describe('machine agents', () => {
    let client: { client_id: string; client_secret: string };

    beforeAll(async () => {
      const { res, body } = await register(base, CONTRACT_REGISTRATION);
      expect(res.status).toBe(201);
      client = body as typeof client;
    });

    it('registers the contract body without a human and returns client_id and client_secret', () => {
      expect(client.client_id).toMatch(/^agt_/);
      expect(client.client_secret).toEqual(expect.any(String));
      expect(client.client_secret.length).toBeGreaterThanOrEqual(32);
    });

    it.each([
      ['audience', 'audience'],
      ['resource (RFC 8707)', 'resource'],
    ])('issues an at+jwt for %s = {base}/mcp: ES256 with kid, aud, scope mcp:read, sub = client id, one hour', async (_label, param) => {
      const res = await token(client.client_id, client.client_secret, { grant_type: 'client_credentials', scope: 'mcp:read', [param]: mcp });
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'mcp:read' });
      const { header, payload } = decodeJwt(body.access_token);
      expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt', kid: expect.any(String) });
      expect(payload).toMatchObject({ iss: base, aud: mcp, scope: 'mcp:read', sub: client.client_id, client_id: client.client_id });
      expect(Number(payload['exp']) - Number(payload['iat'])).toBe(3600);
      const jwks = await json(await fetch(`${base}/oauth2/jwks`));
      expect(jwks.keys.every((k: Record<string, unknown>) => !('d' in k))).toBe(true);
      expect(verifyEs256(body.access_token, jwks)).toBe(true);
    });

    it('refuses a bad secret with 401 invalid_client', async () => {
      const res = await token(client.client_id, `${client.client_secret}x`, { grant_type: 'client_credentials', scope: 'mcp:read', audience: mcp });
      expect(res.status).toBe(401);
      expect(await json(res)).toMatchObject({ error: 'invalid_client' });
    });

    it('refuses a foreign audience with 400 invalid_target', async () => {
      for (const fields of [{ audience: 'https://other.example/mcp' }, { resource: `${base}/api` }]) {
        const res = await token(client.client_id, client.client_secret, { grant_type: 'client_credentials', scope: 'mcp:read', ...fields });
        expect(res.status).toBe(400);
        expect(await json(res)).toMatchObject({ error: 'invalid_target' });
      }
    });

    it('refuses an unknown scope with 400 invalid_scope', async () => {
      const res = await token(client.client_id, client.client_secret, { grant_type: 'client_credentials', scope: 'mcp:read mcp:admin', audience: mcp });
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({ error: 'invalid_scope' });
    });

    it('refuses metadata that would make the server fetch a URL', async () => {
      const { res, body } = await register(base, { ...CONTRACT_REGISTRATION, jwks_uri: 'https://attacker.example/jwks' });
      expect(res.status).toBe(400);
      expect(body).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringContaining('jwks_uri') });
    });

    it('limits registrations per client network: 429 with Retry-After', async () => {
      const ip = '10.200.1.1';
      for (let i = 0; i < 3; i++) expect((await register(base, CONTRACT_REGISTRATION, ip)).res.status).toBe(201);
      const { res, body } = await register(base, CONTRACT_REGISTRATION, ip);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(body).toMatchObject({ error: 'rate_limited' });
      expect((await register(base, CONTRACT_REGISTRATION, '10.200.2.1')).res.status).toBe(201);
    });

    it('keeps registered clients and signing keys across a restart', async () => {
      const before = decodeJwt((await json(await token(client.client_id, client.client_secret, { grant_type: 'client_credentials', audience: mcp }))).access_token);
      await app.stop();
      app = await startAuthServer(env);
      const res = await token(client.client_id, client.client_secret, { grant_type: 'client_credentials', scope: 'mcp:read', audience: mcp });
      expect(res.status).toBe(200);
      const after = decodeJwt((await json(res)).access_token);
      expect(after.payload['sub']).toBe(client.client_id);
      expect(after.header['kid']).toBe(before.header['kid']);
    });
  });

  describe('owners: authorization code + PKCE without a browser', () => {
    const email = `owner-${Date.now()}@example.com`;
    const password = 'a long enough password';
    const redirectUri = 'http://127.0.0.1:8976/callback';
    let ownerId: string;
    let clientId: string;

    beforeAll(async () => {
      const owner = await createOwner(env, email, password);
      expect(owner).toMatchObject({ email, plan: 'pro', created: true });
      ownerId = owner.owner_id;
      const { res, body } = await register(base, {
        client_name: 'Desktop MCP client',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        redirect_uris: [redirectUri],
        scope: 'mcp:read',
      });
      expect(res.status).toBe(201);
      expect(body['client_secret']).toBeUndefined();
      clientId = String(body['client_id']);
    });

    const authorizeUrl = (extra: Record<string, string>) =>
      `${base}/oauth2/auth?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: redirectUri, scope: 'mcp:read', state: 'st4te', resource: mcp, ...extra })}`;

    it('pauses sign-in for an email from an address after too many failures there: 429 with Retry-After, even with the right password', async () => {
      // The first pause is 2 s: on a busy machine the right password may arrive after it ended, and then it signs in,
      // as it should. Such a try is made again with a fresh email (at most three times); one that signs in sooner fails.
      let res: Response;
      for (let run = 1; ; run++) {
        const guarded = `guarded-${Date.now()}-${run}@example.com`;
        await createOwner(env, guarded, password);
        const jar = new CookieJar();
        const { challenge } = pkcePair();
        res = await jar.fetch(authorizeUrl({ code_challenge: challenge, code_challenge_method: 'S256' }));
        const interaction = new URL(res.headers.get('location') ?? '', base).href;
        const csrf = hiddenCsrf(await (await jar.fetch(interaction)).text());
        let lastFailureSent = 0;
        for (let attempt = 1; attempt <= 3; attempt++) {
          lastFailureSent = Date.now();
          res = await jar.fetch(`${interaction}/login`, form({ email: guarded, password: `wrong ${attempt}`, csrf }));
          expect(res.status).toBe(401);
        }
        res = await jar.fetch(`${interaction}/login`, form({ email: guarded, password, csrf }));
        if (res.status === 429 || run === 3) break;
        expect(Date.now() - lastFailureSent).toBeGreaterThan(2_000);
      }
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await res.text()).toContain('Too many failed sign-ins');
    });

    it('signs the owner in, asks consent, exchanges the code and refreshes', async () => {
      const jar = new CookieJar();
      const { verifier, challenge } = pkcePair();
      let res = await jar.fetch(authorizeUrl({ code_challenge: challenge, code_challenge_method: 'S256' }));
      expect(res.status).toBe(303);
      const interaction = new URL(res.headers.get('location') ?? '', base).href;
      expect(interaction).toMatch(new RegExp(`^${base}/oauth2/interaction/[\\w-]+$`));

      res = await jar.fetch(interaction);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      const loginPage = await res.text();
      expect(loginPage).toContain('Desktop MCP client');

      // a wrong password and a forged form are refused
      res = await jar.fetch(`${interaction}/login`, form({ email, password: 'wrong password!', csrf: hiddenCsrf(loginPage) }));
      expect(res.status).toBe(401);
      res = await jar.fetch(`${interaction}/login`, form({ email, password, csrf: 'forged' }));
      expect(res.status).toBe(403);

      res = await jar.fetch(`${interaction}/login`, form({ email, password, csrf: hiddenCsrf(loginPage) }));
      expect(res.status).toBe(303);
      res = await jar.fetch(new URL(res.headers.get('location') ?? '', base).href);
      expect(res.status).toBe(303);
      const consentUrl = new URL(res.headers.get('location') ?? '', base).href;
      res = await jar.fetch(consentUrl);
      const consentPage = await res.text();
      expect(consentPage).toContain('Allow access?');
      expect(consentPage).toContain('access is handed to <strong>127.0.0.1:8976</strong>'); // where the code goes, not only the chosen name

      res = await jar.fetch(`${consentUrl}/confirm`, form({ csrf: hiddenCsrf(consentPage) }));
      expect(res.status).toBe(303);
      res = await jar.fetch(new URL(res.headers.get('location') ?? '', base).href);
      expect(res.status).toBe(303);
      const callback = new URL(res.headers.get('location') ?? '');
      expect(callback.origin + callback.pathname).toBe(redirectUri);
      expect(callback.searchParams.get('state')).toBe('st4te');
      expect(callback.searchParams.get('iss')).toBe(base);
      const code = callback.searchParams.get('code') ?? '';

      const exchange = await fetch(`${base}/oauth2/token`, form({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }));
      expect(exchange.status).toBe(200);
      const tokens = await json(exchange);
      expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'mcp:read', refresh_token: expect.any(String) });
      const { header, payload } = decodeJwt(tokens.access_token);
      expect(header).toMatchObject({ typ: 'at+jwt', alg: 'ES256' });
      expect(payload).toMatchObject({ sub: ownerId, aud: mcp, scope: 'mcp:read', client_id: clientId });
      expect(ownerId).toMatch(/^own_/);

      const refreshed = await fetch(`${base}/oauth2/token`, form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId }));
      expect(refreshed.status).toBe(200);
      const renewed = await json(refreshed);
      expect(decodeJwt(renewed.access_token).payload).toMatchObject({ sub: ownerId, aud: mcp, scope: 'mcp:read' });
      expect(renewed.refresh_token).not.toBe(tokens.refresh_token); // public clients rotate refresh tokens

      // a replayed code is refused and revokes what it produced (RFC 6749 4.1.2)
      const replay = await fetch(`${base}/oauth2/token`, form({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }));
      expect(replay.status).toBe(400);
      const afterReplay = await fetch(`${base}/oauth2/token`, form({ grant_type: 'refresh_token', refresh_token: renewed.refresh_token, client_id: clientId }));
      expect(afterReplay.status).toBe(400);
      expect(await json(afterReplay)).toMatchObject({ error: 'invalid_grant' });
    });

    it.each([
      ['missing', {}],
      ['plain', { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }],
    ])('refuses a %s PKCE challenge', async (_label, pkce) => {
      const res = await fetch(authorizeUrl(pkce), { redirect: 'manual' });
      expect(res.status).toBe(303);
      const location = new URL(res.headers.get('location') ?? '');
      expect(location.origin + location.pathname).toBe(redirectUri);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('error_description')).toMatch(/PKCE|code_challenge/);
    });
  });
});
