import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { AppConfig } from '../../config';

/** A private EC P-256 JWK as oidc-provider takes it. */
interface SigningJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  d: string;
  kid: string;
  alg: 'ES256';
  use: 'sig';
}

export interface KeyMaterial {
  /** Signing keys, newest first: the first signs, every one is published at the jwks endpoint. */
  readonly jwks: { keys: SigningJwk[] };
  /** Cookie and form-token secrets, newest first: the first signs, every one verifies. */
  readonly cookieKeys: string[];
  readonly source: { jwks: 'config' | 'file' | 'generated' | 'data-dir'; cookieKeys: 'config' | 'generated' | 'data-dir' };
}

export class KeyMaterialError extends Error {}

type KeyConfig = Pick<AppConfig, 'AUTH_JWKS' | 'AUTH_JWKS_FILE' | 'AUTH_COOKIE_KEYS' | 'DATA_DIR'>;

/**
 * Signing keys and cookie keys: from config when given (a mounted secret in production),
 * otherwise generated once and kept in DATA_DIR so tokens and sessions survive restarts.
 */
export function loadKeyMaterial(config: KeyConfig): KeyMaterial {
  const dataDir = resolve(config.DATA_DIR);
  let jwks: { keys: SigningJwk[] };
  let jwksSource: KeyMaterial['source']['jwks'];
  if (config.AUTH_JWKS) {
    jwks = parseJwks(config.AUTH_JWKS, 'AUTH_JWKS');
    jwksSource = 'config';
  } else if (config.AUTH_JWKS_FILE) {
    jwks = parseJwks(readText(config.AUTH_JWKS_FILE, 'AUTH_JWKS_FILE'), 'AUTH_JWKS_FILE');
    jwksSource = 'file';
  } else {
    const file = join(dataDir, 'jwks.json');
    jwksSource = existsSync(file) ? 'data-dir' : 'generated';
    if (jwksSource === 'generated') writeSecret(file, JSON.stringify({ keys: [generateSigningJwk()] }, null, 2));
    jwks = parseJwks(readText(file, 'DATA_DIR'), file);
  }

  let cookieKeys: string[];
  let cookieSource: KeyMaterial['source']['cookieKeys'];
  if (config.AUTH_COOKIE_KEYS) {
    cookieKeys = parseCookieKeys(config.AUTH_COOKIE_KEYS, 'AUTH_COOKIE_KEYS');
    cookieSource = 'config';
  } else {
    const file = join(dataDir, 'cookie-keys.txt');
    cookieSource = existsSync(file) ? 'data-dir' : 'generated';
    if (cookieSource === 'generated') writeSecret(file, `${randomBytes(32).toString('base64url')}\n`);
    cookieKeys = parseCookieKeys(readText(file, 'DATA_DIR').trim().split('\n').join(','), file);
  }
  return { jwks, cookieKeys, source: { jwks: jwksSource, cookieKeys: cookieSource } };
}

export function generateSigningJwk(): SigningJwk {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' }) as { x: string; y: string; d: string };
  const base = { kty: 'EC' as const, crv: 'P-256' as const, x: jwk.x, y: jwk.y };
  return { ...base, d: jwk.d, kid: thumbprint(base), alg: 'ES256', use: 'sig' };
}

/** RFC 7638 thumbprint of an EC public key: a stable, collision-free kid. */
function thumbprint(jwk: { crv: string; kty: string; x: string; y: string }): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}

function parseJwks(text: string, origin: string): { keys: SigningJwk[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new KeyMaterialError(`${origin}: not JSON (${(error as Error).message})`, { cause: error });
  }
  const keys = (parsed as { keys?: unknown })?.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw new KeyMaterialError(`${origin}: expected {"keys": [...]} with at least one key`);
  return {
    keys: keys.map((key: Record<string, unknown>, index) => {
      if (key?.['kty'] !== 'EC' || key['crv'] !== 'P-256' || typeof key['d'] !== 'string' || typeof key['x'] !== 'string' || typeof key['y'] !== 'string') {
        throw new KeyMaterialError(`${origin}: keys[${index}] must be a private EC P-256 key (kty EC, crv P-256, x, y, d) for ES256`);
      }
      const base = { kty: 'EC' as const, crv: 'P-256' as const, x: key['x'], y: key['y'] };
      const kid = typeof key['kid'] === 'string' && key['kid'] ? key['kid'] : thumbprint(base);
      return { ...base, d: key['d'], kid, alg: 'ES256' as const, use: 'sig' as const };
    }),
  };
}

function parseCookieKeys(text: string, origin: string): string[] {
  const keys = text
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  if (keys.length === 0 || keys.some((k) => k.length < 32)) {
    throw new KeyMaterialError(`${origin}: give one or more comma-separated secrets of at least 32 characters`);
  }
  return keys;
}

function readText(file: string, origin: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new KeyMaterialError(`${origin}: cannot read ${file} (${(error as Error).message})`, { cause: error });
  }
}

function writeSecret(file: string, content: string) {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // 'wx': two processes starting together never overwrite each other's key.
  try {
    writeFileSync(file, content, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  chmodSync(file, 0o600);
}
