import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppProcess } from '@adintel/testing';
import { ConfigError, loadConfig } from '@adintel/config';
import { appConfigSchema } from '../src/config';
import { checkAddress, checkClientIdUrl, publicClientProblem } from '../src/app/oidc/client-id-metadata-policy';
import { authServerEnv, CookieJar, createOwner, decodeJwt, removeTestState, form, hiddenCsrf, json, pkcePair, startAuthServer } from './e2e/support';

jest.setTimeout(90_000);

/** A throw-away CA and a certificate for localhost / 127.0.0.1 that it signed, made with the openssl CLI. */
function issueTestCertificates() {
  const dir = mkdtempSync(join(tmpdir(), 'cimd-tls-'));
  const path = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=cimd test CA',
    '-keyout', path('ca.key'), '-out', path('ca.pem'), '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign');
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=localhost', '-keyout', path('server.key'), '-out', path('server.csr'));
  const extensions = path('server.ext');
  execFileSync('sh', ['-c', `printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > ${extensions}`]);
  openssl('x509', '-req', '-in', path('server.csr'), '-CA', path('ca.pem'), '-CAkey', path('ca.key'), '-CAcreateserial', '-days', '2', '-out', path('server.pem'), '-extfile', extensions);
  return { dir, caFile: path('ca.pem'), key: readFileSync(path('server.key')), cert: readFileSync(path('server.pem')) };
}

interface DocumentServer {
  readonly origin: string;
  readonly requests: string[];
  close(): Promise<void>;
}

type Route = (origin: string) => { status?: number; type?: string; headers?: Record<string, string>; body?: unknown };

const REDIRECT_URI = 'https://chat.example/oauth/callback';
const LOOPBACK_REDIRECT_URI = 'http://127.0.0.1:33418/callback';

const document = (origin: string, path: string, extra: Record<string, unknown> = {}) => ({
  client_id: `${origin}${path}`,
  client_name: 'Chat Client Example',
  client_uri: 'https://chat.example',
  redirect_uris: [REDIRECT_URI, LOOPBACK_REDIRECT_URI],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  ...extra,
});

/** Every document the tests use; each refusal differs from the good one in exactly one way. */
const ROUTES: Record<string, Route> = {
  '/good.json': (o) => ({ body: document(o, '/good.json') }),
  '/mismatch.json': (o) => ({ body: document(o, '/mismatch.json', { client_id: `${o}/someone-else.json` }) }),
  '/redirect.json': (o) => ({ status: 302, headers: { location: `${o}/good.json` } }),
  '/oversized.json': (o) => ({ body: document(o, '/oversized.json', { client_name: 'x'.repeat(6 * 1024) }) }),
  '/text.json': (o) => ({ type: 'text/plain', body: document(o, '/text.json') }),
  '/machine.json': (o) => ({ body: document(o, '/machine.json', { grant_types: ['authorization_code', 'client_credentials'] }) }),
  '/dns.json': (o) => ({ body: document(o, '/dns.json') }),
};

async function startDocumentServer(tls: { key: Buffer; cert: Buffer }): Promise<DocumentServer> {
  const requests: string[] = [];
  let origin = '';
  const server: Server = createServer(tls, (req, res) => {
    requests.push(req.url ?? '');
    const route = ROUTES[req.url ?? ''];
    if (!route) return void res.writeHead(404).end();
    const { status = 200, type = 'application/json', headers = {}, body } = route(origin);
    res.writeHead(status, { 'content-type': type, ...headers }).end(body === undefined ? undefined : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://localhost:${(server.address() as AddressInfo).port}`;
  return { origin, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Log lines are written just before the response; give the pipe a moment to deliver them. */
async function logLine(app: AppProcess, ...patterns: RegExp[]): Promise<string | undefined> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const line = app.output.find((l) => patterns.every((pattern) => pattern.test(l)));
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

describe('client_id metadata documents: policy', () => {
  it('refuses private, loopback, link-local and CGNAT addresses', () => {
    for (const address of ['10.1.2.3', '192.168.0.1', '172.16.0.1', '169.254.169.254', '100.64.0.1', '127.0.0.1', '::1', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1', '0.0.0.0']) {
      expect(checkAddress(address, false)).toMatchObject({ ok: false });
    }
    expect(checkAddress('8.8.8.8', false)).toEqual({ ok: true });
    expect(checkAddress('2606:4700::1111', false)).toEqual({ ok: true });
  });

  it('refuses what ipaddr.js calls unicast but is not the public internet (issue 23)', () => {
    for (const address of ['64:ff9b:1::a00:1', '64:ff9b::10.0.0.1', '2002:a00:1::1', '198.18.0.1', '198.19.255.1', '192.0.0.8', 'fec0::1', '100::1', '2001:10::1', '2001:2::1']) {
      expect([address, checkAddress(address, false).ok]).toEqual([address, false]);
    }
  });

  it('allows loopback only in the test mode', () => {
    expect(checkAddress('127.0.0.1', true)).toEqual({ ok: true });
    expect(checkAddress('10.1.2.3', true)).toMatchObject({ ok: false });
  });

  it('accepts only https URLs with a path and no user info', () => {
    expect(checkClientIdUrl('https://client.example/metadata.json', false)).toMatchObject({ ok: true });
    for (const id of ['http://client.example/metadata.json', 'https://client.example/', 'https://user:pw@client.example/m.json', 'https://10.0.0.1/m.json', 'https://[::1]/m.json', `https://client.example/${'a'.repeat(2100)}`]) {
      expect(checkClientIdUrl(id, false)).toMatchObject({ ok: false });
    }
  });

  it('accepts public authorization-code clients only', () => {
    const good = { clientAuthMethod: 'none', grantTypes: ['authorization_code'], responseTypes: ['code'], redirectUris: [REDIRECT_URI] };
    expect(publicClientProblem(good)).toBeUndefined();
    expect(publicClientProblem({ ...good, clientAuthMethod: 'private_key_jwt' })).toMatch(/token_endpoint_auth_method/);
    expect(publicClientProblem({ ...good, grantTypes: ['client_credentials'] })).toMatch(/authorization_code/);
    expect(publicClientProblem({ ...good, grantTypes: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'] })).toMatch(/not allowed/);
    expect(publicClientProblem({ ...good, redirectUris: [] })).toMatch(/redirect_uris/);
  });

  it('refuses the test-only loopback CA unless NODE_ENV=test', () => {
    for (const NODE_ENV of ['production', 'development', undefined]) {
      expect(() => loadConfig(appConfigSchema, { NODE_ENV, CIMD_TEST_LOOPBACK_CA_FILE: '/tmp/ca.pem' })).toThrow(ConfigError);
    }
    expect(loadConfig(appConfigSchema, { NODE_ENV: 'test', CIMD_TEST_LOOPBACK_CA_FILE: '/tmp/ca.pem' }).CIMD_TEST_LOOPBACK_CA_FILE).toBe('/tmp/ca.pem');
    expect(loadConfig(appConfigSchema, {}).CIMD_TEST_LOOPBACK_CA_FILE).toBeUndefined();
  });
});

describe('client_id metadata documents (built app, real Redis, a local HTTPS document server)', () => {
  const tls = issueTestCertificates();
  let docs: DocumentServer;
  let env: Awaited<ReturnType<typeof authServerEnv>>;
  let app: AppProcess;
  let base: string;

  beforeAll(async () => {
    docs = await startDocumentServer(tls);
    env = await authServerEnv({ CIMD_TEST_LOOPBACK_CA_FILE: tls.caFile, LOG_LEVEL: 'warn' });
    app = await startAuthServer(env);
    base = env.PUBLIC_BASE_URL;
  });

  afterAll(async () => {
    await app?.stop();
    await docs?.close();
    await removeTestState(env);
    rmSync(tls.dir, { recursive: true, force: true });
  });

  const authorizeUrl = (clientId: string, challenge: string, redirectUri = REDIRECT_URI) =>
    `${base}/oauth2/auth?${new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: 'mcp:read',
      state: 'cimd-state',
      resource: `${base}/mcp`,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })}`;

  /** What a refused client_id looks like to the person: an error page, never a redirect to the unverified redirect_uri. */
  async function expectRefused(clientId: string, reason: RegExp, redirectUri = REDIRECT_URI) {
    const res = await fetch(authorizeUrl(clientId, pkcePair().challenge, redirectUri), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('invalid_client');
    const refusal = await logLine(app, /client_id metadata document refused/, new RegExp(`"client_id":"${clientId.replace(/[.?/]/g, '\\$&')}"`), reason);
    expect(refusal).toBeDefined();
  }

  it('announces client_id_metadata_document_supported and keeps registration', async () => {
    const metadata = await json(await fetch(`${base}/.well-known/oauth-authorization-server`));
    expect(metadata).toMatchObject({ client_id_metadata_document_supported: true, registration_endpoint: `${base}/oauth2/register` });
  });

  it('signs an owner in for a client known only by its document URL, through consent to a token', async () => {
    const clientId = `${docs.origin}/good.json`;
    const email = `cimd-${Date.now()}@example.com`;
    const password = 'a long enough password';
    await createOwner(env, email, password);
    const jar = new CookieJar();
    const { verifier, challenge } = pkcePair();

    let res = await jar.fetch(authorizeUrl(clientId, challenge));
    expect(res.status).toBe(303);
    const interaction = new URL(res.headers.get('location') ?? '', base).href;
    const loginPage = await (await jar.fetch(interaction)).text();
    expect(loginPage).toContain('Chat Client Example');
    res = await jar.fetch(`${interaction}/login`, form({ email, password, csrf: hiddenCsrf(loginPage) }));
    expect(res.status).toBe(303);
    res = await jar.fetch(new URL(res.headers.get('location') ?? '', base).href);
    const consentUrl = new URL(res.headers.get('location') ?? '', base).href;
    const consentPage = await (await jar.fetch(consentUrl)).text();
    expect(consentPage).toContain('Allow access?');
    expect(consentPage).toContain(clientId); // the person sees which URL vouches for the client, not only the name it claims
    res = await jar.fetch(`${consentUrl}/confirm`, form({ csrf: hiddenCsrf(consentPage) }));
    res = await jar.fetch(new URL(res.headers.get('location') ?? '', base).href);
    const callback = new URL(res.headers.get('location') ?? '');
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('state')).toBe('cimd-state');

    const exchange = await fetch(
      `${base}/oauth2/token`,
      form({ grant_type: 'authorization_code', code: callback.searchParams.get('code') ?? '', redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier }),
    );
    expect(exchange.status).toBe(200);
    const tokens = await json(exchange);
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'mcp:read', refresh_token: expect.any(String) });
    expect(decodeJwt(tokens.access_token).payload).toMatchObject({ client_id: clientId, aud: `${base}/mcp`, scope: 'mcp:read' });
    // fetched once, then served from the provider's cache for the token request
    expect(docs.requests.filter((path) => path === '/good.json')).toHaveLength(1);
  });

  it('requires PKCE S256 from a document client like from any other', async () => {
    const url = new URL(authorizeUrl(`${docs.origin}/good.json`, pkcePair().challenge));
    url.searchParams.delete('code_challenge');
    url.searchParams.delete('code_challenge_method');
    const res = await fetch(url, { redirect: 'manual' });
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.origin + location.pathname).toBe(REDIRECT_URI);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toMatch(/PKCE|code_challenge/);
  });

  it('refuses a document whose client_id is not its own URL', () => expectRefused(`${docs.origin}/mismatch.json`, /client_id does not match the expected value/));

  it('refuses a redirect, and never follows it', async () => {
    await expectRefused(`${docs.origin}/redirect.json`, /status 302/);
    expect(docs.requests.filter((path) => path === '/good.json')).toHaveLength(1);
  });

  it('refuses a document larger than 5 KiB', () => expectRefused(`${docs.origin}/oversized.json`, /response too large|content exceeded max size/i));

  it('refuses a document that is not application/json', () => expectRefused(`${docs.origin}/text.json`, /Content-Type is text\/plain/));

  it('refuses a client that could use more than the authorization-code flow', () => expectRefused(`${docs.origin}/machine.json`, /client_credentials is not allowed/));

  it('refuses a redirect_uri the document does not list exactly (a loopback port is not a wildcard)', async () => {
    await expectRefused(`${docs.origin}/good.json`, /https:\/\/evil\.example\/cb is not one of/, 'https://evil.example/cb');
    await expectRefused(`${docs.origin}/good.json`, /127\.0\.0\.1:40000\/callback is not one of/, 'http://127.0.0.1:40000/callback');
  });

  it('refuses private addresses before fetching', () => expectRefused('https://10.20.30.40/client.json', /10\.20\.30\.40 is a private address/));

  it('refuses a name that resolves to loopback when the test CA is not configured (the production setting)', async () => {
    const productionEnv = await authServerEnv({ LOG_LEVEL: 'warn' });
    const production = await startAuthServer(productionEnv);
    try {
      const clientId = `${docs.origin}/dns.json`;
      const res = await fetch(`${productionEnv.PUBLIC_BASE_URL}/oauth2/auth?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'mcp:read', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })}`, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(await logLine(production, /client_id metadata document refused/)).toMatch(/localhost resolves to a refused address: .* is a loopback address/);
      expect(docs.requests).not.toContain('/dns.json');
    } finally {
      await production.stop();
      await removeTestState(productionEnv);
    }
  });
});
