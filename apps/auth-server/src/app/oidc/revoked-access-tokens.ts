import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { createLocalJWKSet, jwtVerify } from 'jose';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { KeyMaterial } from '../keys/key-material';
import { InjectOidcProvider, KEY_MATERIAL } from './oidc.tokens';
import { RevocationList } from './revocation-list';

const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/**
 * Puts every revocation the provider performs, and the JWT access tokens it cannot revoke itself, on the
 * revocation list the gateway follows:
 * - a revoked grant (a replayed authorization code, a reused refresh token, a refresh token revoked at
 *   /oauth2/revoke, an owner revoking a client on /account): `grant.revoked`;
 * - RFC 7009 revocation of a JWT access token: oidc-provider answers `unsupported_token_type` for structured
 *   tokens after it authenticated the client; when the token is ours (signature, issuer, typ) and was issued to
 *   that client, its jti is listed until its `exp` and the answer becomes the RFC's 200. A token of another client
 *   is answered 200 too and left alone (RFC 7009 2.2: an invalid token is not an error).
 */
@Injectable()
export class RevokedAccessTokens implements OnModuleInit {
  private readonly logger = new Logger(RevokedAccessTokens.name);

  constructor(
    @InjectOidcProvider() private readonly provider: Provider,
    @Inject(KEY_MATERIAL) private readonly keys: KeyMaterial,
    private readonly revocations: RevocationList,
  ) {}

  onModuleInit() {
    this.provider.on('grant.revoked', (_ctx, grantId: string) => {
      this.revocations.revoke('grant', grantId).catch((error: unknown) => this.logger.error(`could not list revoked grant ${grantId}: ${(error as Error).message}`));
    });
  }

  /** The provider middleware that revokes JWT access tokens; `provider.use` it before the provider's callback is built. */
  accessTokenRevocation(): (ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void> {
    const publicKeys = createLocalJWKSet({ keys: this.keys.jwks.keys.map(({ d: _private, ...key }) => key) });
    return async (ctx, next) => {
      await next();
      if (ctx.oidc?.route !== 'revocation' || ctx.status !== 400 || (ctx.body as { error?: string } | undefined)?.error !== 'unsupported_token_type') return;
      const clientId = ctx.oidc.client?.clientId;
      const token = ctx.oidc.params?.['token'];
      if (!clientId || typeof token !== 'string' || !JWT.test(token)) return;
      try {
        const { payload } = await jwtVerify(token, publicKeys, { issuer: this.provider.issuer, typ: 'at+jwt' });
        if (payload['client_id'] === clientId && typeof payload.jti === 'string' && typeof payload.exp === 'number') {
          await this.revocations.revoke('token', payload.jti, payload.exp);
          this.logger.log(`access token ${payload.jti} of ${clientId} revoked`);
        }
      } catch (error) {
        this.logger.debug(`revocation of a token that does not verify: ${(error as Error).message}`);
      }
      ctx.status = 200;
      ctx.body = '';
    };
  }
}
