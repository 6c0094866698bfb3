import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { tracked } from './leftovers';

interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

export interface TokenOptions {
  sub?: string;
  scope?: string;
  audience?: string;
  issuer?: string;
  typ?: string;
  expiresInSeconds?: number;
  /** Sign with a key the JWKS does not publish, under the published kid: a forgery. */
  forged?: boolean;
  kid?: string;
}

/** A stand-in for the auth server: an ES256 key set served over real HTTP and tokens signed with it. */
export class TestIssuer {
  private keys: SigningKey[] = [];
  private up = true;

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
    readonly audience: string,
  ) {}

  static async start(issuer: string): Promise<TestIssuer> {
    const server = createServer();
    const testIssuer = new TestIssuer(server, issuer, `${issuer}/mcp`);
    testIssuer.closeServer = tracked(() => new Promise((resolve) => server.close(() => resolve())));
    server.on('request', (req, res) => testIssuer.serve(req.url, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await testIssuer.addKey('key-1');
    return testIssuer;
  }

  private serve(url: string | undefined, res: ServerResponse) {
    if (!this.up || url !== '/oauth2/jwks') {
      res.writeHead(this.up ? 404 : 503).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/jwk-set+json' });
    res.end(JSON.stringify({ keys: this.keys.map((k) => k.publicJwk) }));
  }

  get jwksUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/oauth2/jwks`;
  }

  /** Publishes a new signing key (key rotation); new tokens are signed with it. */
  async addKey(kid: string): Promise<void> {
    this.keys.push(await makeKey(kid));
  }

  setAvailable(up: boolean) {
    this.up = up;
  }

  async token(options: TokenOptions = {}): Promise<string> {
    const current = this.keys.at(-1);
    if (!current) throw new Error('the test issuer has no signing key');
    const key = options.forged ? await makeKey(current.kid) : current;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ scope: options.scope ?? 'mcp:read', client_id: options.sub ?? 'agent-1' })
      .setProtectedHeader({ alg: 'ES256', typ: options.typ ?? 'at+jwt', kid: options.kid ?? key.kid })
      .setSubject(options.sub ?? 'agent-1')
      .setIssuer(options.issuer ?? this.issuer)
      .setAudience(options.audience ?? this.audience)
      .setIssuedAt(now - 10)
      .setExpirationTime(now + (options.expiresInSeconds ?? 3600))
      .setJti(crypto.randomUUID())
      .sign(key.privateKey);
  }

  /** An unsigned token (`alg: none`) with otherwise perfect claims. */
  unsignedToken(sub = 'agent-1'): string {
    const now = Math.floor(Date.now() / 1000);
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${part({ alg: 'none', typ: 'at+jwt' })}.${part({
      sub,
      iss: this.issuer,
      aud: this.audience,
      scope: 'mcp:read',
      iat: now,
      exp: now + 3600,
    })}.`;
  }

  private closeServer: () => Promise<void> = () => Promise.resolve();

  close(): Promise<void> {
    return this.closeServer();
  }
}

async function makeKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}
