import { createHash, createPublicKey, randomBytes, verify, type JsonWebKey } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from '@adintel/redis';
import { freePort, startApp, WORKSPACE_ROOT, type AppProcess } from '@adintel/testing';

/** Auth tests use Redis db 2 and a random key prefix per run, so parallel suites never collide. */
export const TEST_REDIS_URL = 'redis://127.0.0.1:6379/2';

export interface AuthServerEnv {
  readonly PUBLIC_BASE_URL: string;
  readonly REDIS_URL: string;
  readonly REDIS_KEY_PREFIX: string;
  readonly DATA_DIR: string;
  readonly [key: string]: string;
}

export async function authServerEnv(extra: Record<string, string> = {}): Promise<AuthServerEnv & { PORT: string }> {
  const port = await freePort();
  return {
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: `test-auth-${randomBytes(4).toString('hex')}:`,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'auth-server-test-')),
    LOG_LEVEL: 'warn',
    // Suites register many agents from few networks: the trial limits are tested where they are set low.
    TRIALS_PER_NETWORK_PER_DAY: '1000',
    TRIALS_PER_HOUR: '1000',
    ...extra,
  };
}

export function startAuthServer(env: AuthServerEnv & { PORT: string }): Promise<AppProcess> {
  return startApp({ name: 'auth-server', port: Number(env.PORT), env });
}

/** Runs the operator command exactly as `nx run auth-server:create-owner` does. */
export async function createOwner(env: AuthServerEnv, email: string, password: string, plan = 'pro') {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(WORKSPACE_ROOT, 'dist/apps/auth-server/create-owner.js'), `--email=${email}`, `--plan=${plan}`],
    { env: { ...process.env, ...env, OWNER_PASSWORD: password }, cwd: WORKSPACE_ROOT },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { owner_id: string; email: string; plan: string; created: boolean; metering: string };
}

/** What a test's auth server leaves: its Redis keys (under its prefix) and its DATA_DIR. */
export async function removeTestState(env: Pick<AuthServerEnv, 'REDIS_KEY_PREFIX' | 'DATA_DIR'>) {
  await deleteKeys(env.REDIS_KEY_PREFIX);
  rmSync(env.DATA_DIR, { recursive: true, force: true });
}

async function deleteKeys(prefix: string) {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** A tiny cookie jar: enough for one origin and the provider's path-scoped cookies. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      if (!value || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: this.header() } });
    this.store(res);
    return res;
  }
}

export const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

export const hiddenCsrf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header = '', payload = ''] = token.split('.');
  return { header: JSON.parse(Buffer.from(header, 'base64url').toString()), payload: JSON.parse(Buffer.from(payload, 'base64url').toString()) };
}

/** Verifies an ES256 JWS against a public JWKS with node:crypto alone. */
export function verifyEs256(token: string, jwks: { keys: (JsonWebKey & { kid?: string })[] }): boolean {
  const [header = '', payload = '', signature = ''] = token.split('.');
  const { kid } = decodeJwt(token).header;
  const jwk = jwks.keys.find((k) => k.kid === kid);
  if (!jwk) return false;
  return verify('sha256', Buffer.from(`${header}.${payload}`), { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
}

export const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

export const CONTRACT_REGISTRATION = {
  client_name: 'e2e-agent',
  grant_types: ['client_credentials'],
  response_types: [],
  token_endpoint_auth_method: 'client_secret_basic',
  scope: 'mcp:read',
};

/** Registers from a distinct client address (X-Forwarded-For, one trusted hop) so the per-IP limit is per test. */
export async function register(base: string, body: unknown, ip = `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`) {
  const res = await fetch(`${base}/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify(body),
  });
  return { res, body: (await res.json()) as Record<string, unknown> };
}

/** Response bodies in tests are whatever JSON the server sent; the assertions give them their shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;
export const json = (res: Response): Promise<Json> => res.json() as Promise<Json>;
