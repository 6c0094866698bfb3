import { hash } from 'node:crypto';
import type { Request } from 'express';

const MARK = 'sha256:';

/**
 * Client secrets are kept as SHA-256 digests: a copy of the store (a backup, a Redis user that reads too much)
 * gives nobody a working secret. oidc-provider compares the stored `client_secret` with the presented one as
 * strings, so the stored value is the digest and every presented secret is digested before the provider sees it
 * (presentHashedSecret). A fast digest suffices: secrets are 256 random bits, not passwords. This holds because
 * no client may use a secret as a key (client_secret_jwt, HS* algorithms): the registration allow-list refuses them.
 */
export function clientSecretDigest(secret: string): string {
  return `${MARK}${hash('sha256', secret, 'base64url')}`;
}

/** The stored form of a client's secret: records written before digests were kept hold the secret itself. */
export function storedClientSecret(stored: string): string {
  return stored.startsWith(MARK) ? stored : clientSecretDigest(stored);
}

/**
 * Replaces the client secret of a request (HTTP Basic password or the form's `client_secret`) by its digest, so
 * the provider's comparison with the stored digest holds. Whatever is presented is digested, a digest included:
 * knowing a stored value is no way in.
 */
export function presentHashedSecret(req: Request): void {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers.authorization ?? '');
  if (basic?.[1]) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon >= 0) {
      let secret = decoded.slice(colon + 1);
      try {
        secret = decodeURIComponent(secret);
      } catch {
        // not form-encoded: the provider refuses the header itself; digesting it as is changes nothing
      }
      const credentials = `${decoded.slice(0, colon)}:${encodeURIComponent(clientSecretDigest(secret))}`;
      req.headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
  }
  const form = req.body as Record<string, unknown> | undefined;
  if (form && typeof form['client_secret'] === 'string') form['client_secret'] = clientSecretDigest(form['client_secret']);
}
