import { Logger } from '@nestjs/common';
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { MCP_SCOPE } from '@adintel/contracts';
import type { AuthProblems } from './challenge';
import type { Caller } from './caller';
import type { RevocationList } from './revocation-list';
import { VerifiedTokenCache } from './verified-token-cache';

interface AccessTokenVerifierOptions {
  readonly jwksUrl: string;
  readonly issuer: string;
  readonly audience: string;
  readonly timeoutMs: number;
  readonly cacheMaxAgeMs: number;
  readonly cooldownMs: number;
  /** Verified tokens remembered (by hash, until their `exp`); 0 verifies every request. */
  readonly tokenCacheEntries: number;
}

const ALGORITHMS = ['ES256'];

/** The key set could not be fetched: our trouble, not a fault of the token. */
class KeysUnavailable extends Error {}
const CLOCK_TOLERANCE_SECONDS = 5;

/**
 * Checks an access token the way the auth server promised to issue it: ES256 JWT of type at+jwt,
 * signed by a key of its JWKS (cached; refetched when a token names an unknown `kid`), from our issuer,
 * for our audience, unexpired, with scope mcp:read.
 */
export class AccessTokenVerifier {
  private readonly logger = new Logger('AccessTokenVerifier');
  private readonly keys: ReturnType<typeof createRemoteJWKSet>;
  private readonly verified: VerifiedTokenCache;

  constructor(
    private readonly options: AccessTokenVerifierOptions,
    private readonly problems: AuthProblems,
    private readonly revocations?: RevocationList,
  ) {
    this.keys = createRemoteJWKSet(new URL(options.jwksUrl), {
      timeoutDuration: options.timeoutMs,
      cacheMaxAge: options.cacheMaxAgeMs,
      cooldownDuration: options.cooldownMs,
    });
    // A verified token is trusted no longer than the keys that verified it are (cacheMaxAge), so a key the auth
    // server withdraws stops its tokens here within the same window as before the cache.
    this.verified = new VerifiedTokenCache({ maxEntries: options.tokenCacheEntries, maxAgeMs: options.cacheMaxAgeMs });
  }

  async verify(token: string): Promise<Caller> {
    let caller = this.verified.get(token);
    if (!caller) {
      caller = await this.verifyToken(token);
      this.verified.remember(token, caller);
    }
    // Checked on every request, cached token or not: a revocation takes effect at the next poll of the list.
    if (this.revocations?.isRevoked(caller)) throw this.problems.refused('invalid_token', 'the access token has been revoked; request a new one');
    return caller;
  }

  private async verifyToken(token: string): Promise<Caller> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, (header, jws) => this.keyFor(header, jws), {
        algorithms: ALGORITHMS,
        typ: 'at+jwt',
        issuer: this.options.issuer,
        audience: this.options.audience,
        requiredClaims: ['exp', 'sub'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }));
    } catch (error) {
      throw this.refusal(error);
    }
    const scopes = typeof payload['scope'] === 'string' ? payload['scope'].split(' ').filter(Boolean) : [];
    if (!scopes.includes(MCP_SCOPE)) {
      throw this.problems.refused('insufficient_scope', `the access token lacks the scope ${MCP_SCOPE}; request a token with scope=${MCP_SCOPE}`);
    }
    const clientId = payload['client_id'];
    const grantId = payload['grant_id'];
    return {
      sub: String(payload.sub),
      scopes,
      expiresAt: Number(payload.exp),
      ...(typeof clientId === 'string' ? { clientId } : {}),
      ...(typeof payload.jti === 'string' ? { tokenId: payload.jti } : {}),
      ...(typeof grantId === 'string' ? { grantId } : {}),
    };
  }

  private async keyFor(...args: Parameters<ReturnType<typeof createRemoteJWKSet>>) {
    try {
      return await this.keys(...args);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) throw error;
      throw new KeysUnavailable((error as Error).message, { cause: error });
    }
  }

  /** Readiness: the key set can be fetched and holds keys. */
  async keysReachable(): Promise<{ keys: number }> {
    const res = await fetch(this.options.jwksUrl, { signal: AbortSignal.timeout(this.options.timeoutMs) });
    if (!res.ok) throw new Error(`JWKS answered ${res.status}`);
    const body = (await res.json()) as { keys?: unknown[] };
    if (!Array.isArray(body.keys) || body.keys.length === 0) throw new Error('JWKS holds no keys');
    return { keys: body.keys.length };
  }

  private refusal(error: unknown) {
    const refuse = (detail: string) => this.problems.refused('invalid_token', detail);
    if (error instanceof KeysUnavailable || !(error instanceof errors.JOSEError)) {
      this.logger.warn(`cannot fetch the signing keys from ${this.options.jwksUrl}: ${(error as Error).message}`);
      return this.problems.keysUnavailable();
    }
    if (error instanceof errors.JWTExpired) return refuse('the access token has expired; request a new one');
    if (error instanceof errors.JWTClaimValidationFailed) {
      switch (error.claim) {
        case 'aud':
          return refuse(`the access token is for another audience; request one with audience=${this.options.audience}`);
        case 'iss':
          return refuse(`the access token was not issued by ${this.options.issuer}`);
        case 'typ':
          return refuse('the token is not an access token (typ must be at+jwt)');
        default:
          return refuse(`the access token's ${error.claim} claim is not acceptable: ${error.reason}`);
      }
    }
    if (error instanceof errors.JOSEAlgNotAllowed) return refuse(`access tokens must be signed with ${ALGORITHMS.join(' or ')}`);
    if (error instanceof errors.JWKSNoMatchingKey) return refuse('the access token is signed with a key the auth server does not publish');
    if (error instanceof errors.JWSSignatureVerificationFailed) return refuse('the access token signature does not verify');
    return refuse('the access token is malformed');
  }
}
