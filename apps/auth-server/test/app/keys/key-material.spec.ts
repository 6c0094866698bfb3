import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSigningJwk, KeyMaterialError, loadKeyMaterial } from '../../../src/app/keys/key-material';

describe('loadKeyMaterial', () => {
  it('generates keys once into DATA_DIR (owner-only files) and reuses them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'auth-keys-'));
    const first = loadKeyMaterial({ DATA_DIR: dir });
    expect(first.source).toEqual({ jwks: 'generated', cookieKeys: 'generated' });
    expect(first.jwks.keys).toHaveLength(1);
    expect(first.jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) });
    expect(statSync(join(dir, 'jwks.json')).mode & 0o777).toBe(0o600);
    const second = loadKeyMaterial({ DATA_DIR: dir });
    expect(second.source).toEqual({ jwks: 'data-dir', cookieKeys: 'data-dir' });
    expect(second.jwks).toEqual(first.jwks);
    expect(second.cookieKeys).toEqual(first.cookieKeys);
    expect(JSON.parse(readFileSync(join(dir, 'jwks.json'), 'utf8')).keys[0].d).toBe(first.jwks.keys[0]?.d);
    rmSync(dir, { recursive: true });
  });

  it('takes keys from config, newest first, keeping older keys for rotation', () => {
    const [newer, older] = [generateSigningJwk(), generateSigningJwk()];
    const material = loadKeyMaterial({
      DATA_DIR: '/nonexistent',
      AUTH_JWKS: JSON.stringify({ keys: [newer, older] }),
      AUTH_COOKIE_KEYS: `${'a'.repeat(32)}, ${'b'.repeat(40)}`,
    });
    expect(material.jwks.keys.map((k) => k.kid)).toEqual([newer.kid, older.kid]);
    expect(material.cookieKeys).toEqual(['a'.repeat(32), 'b'.repeat(40)]);
    expect(material.source).toEqual({ jwks: 'config', cookieKeys: 'config' });
  });

  it('refuses keys that cannot sign ES256 and short cookie secrets', () => {
    const { d: _d, ...publicOnly } = generateSigningJwk();
    expect(() => loadKeyMaterial({ DATA_DIR: '/x', AUTH_JWKS: JSON.stringify({ keys: [publicOnly] }) })).toThrow(KeyMaterialError);
    expect(() => loadKeyMaterial({ DATA_DIR: '/x', AUTH_JWKS: 'not json' })).toThrow(/AUTH_JWKS: not JSON/);
    expect(() => loadKeyMaterial({ DATA_DIR: '/x', AUTH_JWKS: JSON.stringify({ keys: [generateSigningJwk()] }), AUTH_COOKIE_KEYS: 'short' })).toThrow(
      /AUTH_COOKIE_KEYS/,
    );
  });
});
