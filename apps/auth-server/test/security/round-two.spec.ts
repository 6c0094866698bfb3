import { createHash } from 'node:crypto';
import { Redis } from '@adintel/redis';
import { basic, CONTRACT_REGISTRATION, CookieJar, createOwner, form, hiddenCsrf, register, TEST_REDIS_URL } from '../e2e/support';
import { authServerFor, counterValue } from './support';

jest.setTimeout(60_000);

const digest = (secret: string) => createHash('sha256').update(secret).digest('base64url');

/**
 * Issue 33 (the second review), the auth server's findings as a real process on Redis: revocation floods (5), sign-in
 * bursts and their hashes (9), a new owner password (12), a mangled cookie (14) and secrets in key names (3).
 * Addresses come as X-Forwarded-For (trusted loopback).
 */
describe('security review, round two: the auth server', () => {
  const server = authServerFor({
    LOGIN_MAX_FAILURES: '3',
    LOGIN_FAILURES_PER_IP: '6',
    LOGIN_HASHES_AT_ONCE: '1',
    LOGIN_HASHES_WAITING: '1',
    REVOCATIONS_PER_CLIENT_PER_MINUTE: '5',
    LOG_LEVEL: 'info',
  });
  const base = () => server().url;
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(() => redis.disconnect());
  const key = (name: string) => `${server().env.REDIS_KEY_PREFIX}${name}`;

  /** The login form's CSRF pair for one address: a cookie jar and the token. */
  async function loginForm(from: string) {
    const jar = new CookieJar();
    const page = await (await jar.fetch(`${base()}/account/login`, { headers: { 'x-forwarded-for': from } })).text();
    return { jar, csrf: hiddenCsrf(page) };
  }
  async function signIn(email: string, password: string, from: string, prepared?: { jar: CookieJar; csrf: string }) {
    const { jar, csrf } = prepared ?? (await loginForm(from));
    const request = form({ email, password, csrf });
    const res = await jar.fetch(`${base()}/account/login`, { ...request, headers: { ...request.headers, 'x-forwarded-for': from } });
    return { res, jar };
  }

  describe('owner sign-in (finding 9)', () => {
    const password = 'the owner password';
    let email: string;
    beforeAll(async () => {
      email = `burst-${Date.now()}@example.com`;
      await createOwner(server().env, email, password);
    }, 60_000);

    it('a parallel burst of wrong passwords for one email from one address is held to LOGIN_MAX_FAILURES guesses', async () => {
      const from = '192.0.2.140';
      const forms = [];
      for (let i = 0; i < 20; i++) forms.push(await loginForm(from));
      const statuses = await Promise.all(forms.map(async (prepared, i) => (await signIn(email, `wrong ${i}`, from, prepared)).res.status));
      // Every 401 is a password hashed and checked: a guess. The rest were refused before any hash.
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(3);
      expect(statuses.filter((s) => s !== 401).every((s) => s === 429)).toBe(true);
    });

    it('a parallel burst over many emails from one address is held to LOGIN_FAILURES_PER_IP guesses', async () => {
      const from = '192.0.2.141';
      const forms = [];
      for (let i = 0; i < 20; i++) forms.push(await loginForm(from));
      const statuses = await Promise.all(forms.map(async (prepared, i) => (await signIn(`sprayed-${i}@example.com`, 'Summer2026!!', from, prepared)).res.status));
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(6);
    });

    it('runs at most LOGIN_HASHES_AT_ONCE hashes with LOGIN_HASHES_WAITING waiting: more sign-ins at once get 429, Retry-After 1', async () => {
      const before = await counterValue(base(), 'adintel_limit_refusals_total', 'limit="login_hashes_busy"');
      const forms = [];
      for (let i = 0; i < 8; i++) forms.push(await loginForm(`198.51.100.${150 + i}`));
      const answers = await Promise.all(forms.map((prepared, i) => signIn(`hash-${i}@example.com`, 'a wrong password', `198.51.100.${150 + i}`, prepared)));
      const busy = answers.filter(({ res }) => res.status === 429);
      expect(busy.length).toBeGreaterThan(0);
      expect(busy.every(({ res }) => res.headers.get('retry-after') === '1')).toBe(true);
      expect(answers.every(({ res }) => res.status === 401 || res.status === 429)).toBe(true);
      expect(await counterValue(base(), 'adintel_limit_refusals_total', 'limit="login_hashes_busy"')).toBe(before + busy.length);
    });

    it("the owner's right password still signs her in, and her session's key holds a digest of its id, not the id", async () => {
      const { res, jar } = await signIn(email, password, '198.51.100.40');
      expect(res.status).toBe(303);
      const id = /account_session=([^;]+)/.exec(jar.header())?.[1] ?? '';
      expect(id).toMatch(/^[\w-]{43}$/);
      expect(await redis.exists(key(`account-session:${id}`))).toBe(0);
      expect(await redis.exists(key(`account-session:${digest(id)}`))).toBe(1);
    });

    it("a new password ends the owner's sessions (finding 12)", async () => {
      const { jar } = await signIn(email, password, '198.51.100.41');
      // Signed in: the page (503 without metering here: usage accounting is not part of this test), not the login form.
      expect((await jar.fetch(`${base()}/account`)).status).not.toBe(303);
      await createOwner(server().env, email, 'a brand new owner password');
      const after = await jar.fetch(`${base()}/account`);
      expect(after.status).toBe(303);
      expect(after.headers.get('location')).toMatch(/\/account\/login/);
      expect((await signIn(email, 'a brand new owner password', '198.51.100.41')).res.status).toBe(303);
    });
  });

  describe('a mangled cookie (finding 14)', () => {
    it.each(['/account', '/account/login'])('%s answers 400 naming the cookie for an account_session that is not valid percent-encoding', async (path) => {
      const res = await fetch(`${base()}${path}`, { headers: { cookie: 'account_session=%E0%A4%A', 'x-forwarded-for': '198.51.100.60' }, redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/account_session/);
    });
  });

  describe('/oauth2/revoke (finding 5)', () => {
    const revoke = (authorization: string, token: string, from: string) =>
      fetch(`${base()}/oauth2/revoke`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': from },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      });
    async function agentWithToken() {
      const { body } = await register(base(), CONTRACT_REGISTRATION);
      const authorization = basic(String(body['client_id']), String(body['client_secret']));
      const res = await fetch(`${base()}/oauth2/token`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:read', resource: `${base()}/mcp` }).toString(),
      });
      const token = String(((await res.json()) as Record<string, unknown>)['access_token']);
      return { clientId: String(body['client_id']), authorization, token };
    }

    it('lists a token once however often it is revoked', async () => {
      const { authorization, token } = await agentWithToken();
      const before = await redis.xlen(key('revocations'));
      for (let i = 0; i < 3; i++) expect((await revoke(authorization, token, '198.51.100.70')).status).toBe(200);
      expect(await redis.xlen(key('revocations'))).toBe(before + 1);
    });

    it('answers a flood from one client 429 with Retry-After; wrong secrets naming the client take nothing from it', async () => {
      const { clientId, authorization, token } = await agentWithToken();
      for (let i = 0; i < 3; i++) expect((await revoke(basic(clientId, 'wrong-secret'), token, '192.0.2.170')).status).toBe(401);
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await revoke(authorization, `${token.slice(0, -4)}${i}xyz`, '198.51.100.71')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
      const refused = await revoke(authorization, token, '198.51.100.72');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    });
  });
});
