import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { WORKSPACE_ROOT } from '@adintel/testing';

/** Cookies of one origin, enough for the auth server's pages. */
export class Browser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly baseUrl: string) {}

  async fetch(pathOrUrl: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const res = await fetch(new URL(pathOrUrl, this.baseUrl), {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      redirect: 'manual',
      headers: {
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const value = pair.slice(at + 1).trim();
      if (!value || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(pair.slice(0, at).trim());
      else this.cookies.set(pair.slice(0, at).trim(), value);
    }
    return res;
  }

  /** Follows a 303 to where it points. */
  follow(res: Response): Promise<Response> {
    return this.fetch(res.headers.get('location') ?? '/');
  }
}

export const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';

/** The operator command, as `nx run auth-server:create-owner` runs it, against the stack's Redis. */
export async function createOwner(redisUrl: string, email: string, password: string): Promise<void> {
  await promisify(execFile)(process.execPath, [join(WORKSPACE_ROOT, 'dist/apps/auth-server/create-owner.js'), `--email=${email}`, '--plan=pro'], {
    env: { ...process.env, REDIS_URL: redisUrl, OWNER_PASSWORD: password, LOG_LEVEL: 'warn' },
    cwd: WORKSPACE_ROOT,
  });
}

/** A public PKCE client, registered as a chat client would. */
export async function registerPublicClient(baseUrl: string, redirectUri: string): Promise<string> {
  const res = await fetch(`${baseUrl}/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Chat client',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      redirect_uris: [redirectUri],
      scope: 'mcp:read',
    }),
  });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  return String(((await res.json()) as { client_id: string }).client_id);
}

/** The code flow with PKCE as a person goes through it: sign in, approve, and the client exchanges the code. */
export async function approveAndExchange(baseUrl: string, owner: { email: string; password: string }, clientId: string, redirectUri: string) {
  const browser = new Browser(baseUrl);
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: 'mcp:read',
    state: 's',
    resource: `${baseUrl}/mcp`,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const interaction = (await browser.fetch(`/oauth2/auth?${query}`)).headers.get('location') ?? '';
  const login = await (await browser.fetch(interaction)).text();
  let res = await browser.fetch(`${interaction}/login`, { form: { email: owner.email, password: owner.password, csrf: csrfOf(login) } });
  const consentUrl = (await browser.follow(res)).headers.get('location') ?? '';
  const consent = await (await browser.fetch(consentUrl)).text();
  res = await browser.follow(await browser.fetch(`${consentUrl}/confirm`, { form: { csrf: csrfOf(consent) } }));
  const code = new URL(res.headers.get('location') ?? '').searchParams.get('code') ?? '';
  const exchange = await fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }),
  });
  if (exchange.status !== 200) throw new Error(`code exchange: ${exchange.status} ${await exchange.text()}`);
  return (await exchange.json()) as { access_token: string; refresh_token: string };
}

/** The owner's /account page, signed in. */
export async function signedInAccount(baseUrl: string, owner: { email: string; password: string }): Promise<Browser> {
  const browser = new Browser(baseUrl);
  const login = await (await browser.fetch('/account/login')).text();
  const res = await browser.fetch('/account/login', { form: { email: owner.email, password: owner.password, csrf: csrfOf(login) } });
  if (res.status !== 303) throw new Error(`account sign-in: ${res.status}`);
  return browser;
}
