import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { type Redis } from '@adintel/redis';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { mcpResourceUrl } from '@adintel/config';
import type { AppConfig } from '../../config';
import type { KeyMaterial } from '../keys/key-material';
import type { OwnersService } from '../owners/owners.service';
import { Html, html, page } from '../web/html';
import { CIMD_MAX_BYTES, clientIdMetadataDocumentFeature, createDocumentFetch, logDocumentFailures, type CimdPolicyOptions } from './client-id-metadata-policy';
import { redisAdapterFactory } from './redis-adapter';
import { MCP_SCOPE, SUPPORTED_SCOPES } from './registration-policy';

export const OAUTH_PREFIX = '/oauth2';
const AGENT_ID_PREFIX = 'agt_';
const interactionPath = (uid: string) => `${OAUTH_PREFIX}/interaction/${uid}`;

interface ProviderDeps {
  readonly config: AppConfig;
  readonly keys: KeyMaterial;
  readonly redis: Redis;
  readonly owners: OwnersService;
}

/** Every endpoint lives under /oauth2; the issuer itself has no path, so RFC 8414 metadata sits at the root. */
const ROUTES = {
  authorization: `${OAUTH_PREFIX}/auth`,
  token: `${OAUTH_PREFIX}/token`,
  registration: `${OAUTH_PREFIX}/register`,
  jwks: `${OAUTH_PREFIX}/jwks`,
  revocation: `${OAUTH_PREFIX}/revoke`,
  end_session: `${OAUTH_PREFIX}/logout`,
  userinfo: `${OAUTH_PREFIX}/userinfo`,
  introspection: `${OAUTH_PREFIX}/introspect`,
  pushed_authorization_request: `${OAUTH_PREFIX}/par`,
  device_authorization: `${OAUTH_PREFIX}/device/auth`,
  code_verification: `${OAUTH_PREFIX}/device`,
  backchannel_authentication: `${OAUTH_PREFIX}/backchannel`,
  challenge: `${OAUTH_PREFIX}/challenge`,
  credential: `${OAUTH_PREFIX}/credential`,
};

const DAY = 24 * 3600;

export function createOidcProvider({ config, keys, redis, owners }: ProviderDeps): Provider {
  const logger = new Logger('OidcProvider');
  const audience = mcpResourceUrl(config.PUBLIC_BASE_URL);
  const accessTokenTtl = config.ACCESS_TOKEN_TTL_SECONDS;
  const cimd: CimdPolicyOptions = {
    cacheSeconds: { min: config.CIMD_CACHE_MIN_SECONDS, max: config.CIMD_CACHE_MAX_SECONDS },
    ...(config.CIMD_TEST_LOOPBACK_CA_FILE ? { testLoopbackCa: readFileSync(config.CIMD_TEST_LOOPBACK_CA_FILE, 'utf8') } : {}),
  };
  if (cimd.testLoopbackCa) logger.warn('CIMD_TEST_LOOPBACK_CA_FILE is set: client_id metadata documents may come from loopback (tests only)');

  const configuration: Configuration = {
    adapter: redisAdapterFactory(redis, { clientTtlSeconds: config.CLIENT_UNUSED_TTL_SECONDS }),
    jwks: keys.jwks,
    cookies: {
      keys: keys.cookieKeys,
      names: { session: 'auth_session', interaction: 'auth_interaction', resume: 'auth_interaction_resume' },
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
    },
    scopes: [...SUPPORTED_SCOPES],
    claims: { openid: ['sub'] },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    responseTypes: ['code'],
    // OAuth 2.1: every authorization-code client uses PKCE, S256 only (v9 never accepts plain).
    pkce: { required: () => true },
    // Outgoing fetches serve client_id metadata documents only: registration refuses jwks_uri and sector_identifier_uri.
    fetch: createDocumentFetch(cimd),
    fetchResponseBodyLimits: { 'client_id metadata document': CIMD_MAX_BYTES },
    features: {
      devInteractions: { enabled: false },
      clientIdMetadataDocument: clientIdMetadataDocumentFeature(cimd, logger),
      dPoP: { enabled: false },
      clientCredentials: { enabled: true },
      registration: {
        enabled: true,
        initialAccessToken: false,
        issueRegistrationAccessToken: false,
        idFactory: () => `${AGENT_ID_PREFIX}${randomBytes(16).toString('base64url')}`,
        secretFactory: () => randomBytes(32).toString('base64url'),
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resourceIndicator) => {
          if (resourceIndicator !== audience) throw new errors.InvalidTarget(`the only audience served here is ${audience}`);
          return {
            scope: MCP_SCOPE,
            audience,
            accessTokenTTL: accessTokenTtl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      introspection: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) => {
          ctx.type = 'html';
          ctx.body = page(
            'Sign out',
            html`<div class="card"><h1>Sign out?</h1><p>End your session on this server.</p>${new Html(form)}
              <div class="actions"><button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>
              <button type="submit" form="op.logoutForm" class="secondary">Stay signed in</button></div></div>`,
          );
        },
        postLogoutSuccessSource: (ctx) => {
          ctx.type = 'html';
          ctx.body = page('Signed out', html`<div class="card"><h1>Signed out</h1><p>You can close this page.</p></div>`);
        },
      },
    },
    routes: ROUTES,
    ttl: {
      AccessToken: accessTokenTtl,
      ClientCredentials: accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 30 * DAY,
      Interaction: 3600,
      Session: 14 * DAY,
      Grant: 30 * DAY,
    },
    // The gateway refuses the access tokens of a revoked grant (revocation-list.ts): they carry its id.
    extraTokenClaims: (_ctx, token) => (token.kind === 'AccessToken' && token.grantId ? { grant_id: token.grantId } : undefined),
    // Agents signed in by an owner keep working after the owner's browser session ends.
    expiresWithSession: () => false,
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    clientBasedCORS: (_ctx, origin, client) =>
      origin !== 'null' && client.clientAuthMethod === 'none' && (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
    interactions: { url: (_ctx, interaction) => interactionPath(interaction.uid) },
    findAccount: async (_ctx, sub) => {
      const owner = await owners.findById(sub);
      if (!owner) return undefined;
      return { accountId: owner.owner_id, claims: () => ({ sub: owner.owner_id }) };
    },
    renderError: (ctx: KoaContextWithOIDC, out) => {
      ctx.type = 'html';
      ctx.body = page(
        'Sign-in error',
        html`<div class="card"><h1>This request cannot be completed</h1>
          <p class="error" role="alert"><strong>${out['error']}</strong>: ${out['error_description'] ?? ''}</p>
          <p class="muted">Go back to the application that sent you here and start again.</p></div>`,
      );
    },
  };

  const provider = new Provider(config.PUBLIC_BASE_URL, configuration);
  // The public origin comes from PUBLIC_BASE_URL through X-Forwarded-* set by our own front middleware.
  provider.proxy = true;
  provider.on('server_error', (_ctx, error) => logger.error(`oidc-provider server error: ${error.message}`, error.stack));
  // The provider answers with generic descriptions; the precise reason helps whoever reads the logs.
  const explain = (event: string) => (_ctx: unknown, error: Error & { error_detail?: string }) =>
    logger.debug(`${event}: ${error.message}${error.error_detail ? ` (${error.error_detail})` : ''}`);
  provider.on('grant.error', explain('grant.error'));
  provider.on('authorization.error', explain('authorization.error'));
  provider.on('registration_create.error', explain('registration_create.error'));
  logDocumentFailures(provider, logger);
  return provider;
}
