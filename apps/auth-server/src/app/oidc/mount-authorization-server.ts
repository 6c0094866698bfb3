import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type Provider from 'oidc-provider';
import { APP_CONFIG } from '@adintel/config';
import { AppMetrics, bodyFailureOf } from '@adintel/observability';
import type { AppConfig } from '../../config';
import { OAUTH_PREFIX } from './oidc-provider.factory';
import { OIDC_PROVIDER } from './oidc.module';
import { presentHashedSecret } from './client-secret-hash';
import { MetadataFetchLimiter, metadataDocumentClientId } from './metadata-fetch-limiter';
import { checkRegistration } from './registration-policy';
import { type Admission, RegistrationRateLimiter } from './registration-rate-limiter';
import { clientIdOf, TokenFailureLimiter } from './token-failure-limiter';
import { RevokedAccessTokens } from './revoked-access-tokens';
import { RevocationRateLimiter } from './revocation-rate-limiter';
import { adaptTokenRequest } from './token-request';

const METADATA_PATHS = new Set(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);

/** Paths oidc-provider answers; interactions and the account pages are Nest controllers. */
function servedByProvider(path: string): boolean {
  if (METADATA_PATHS.has(path)) return true;
  return path.startsWith(`${OAUTH_PREFIX}/`) && !path.startsWith(`${OAUTH_PREFIX}/interaction/`);
}

function oauthError(res: Response, status: number, error: string, description: string, headers: Record<string, string> = {}) {
  res.status(status).set({ 'Cache-Control': 'no-store', ...headers }).json({ error, error_description: description });
}

/**
 * Runs a body parser and answers a body it refuses with an OAuth error (413 when too large) instead of
 * an HTML page, and without the parser's own message.
 */
function parseOr(parser: RequestHandler, format: string): RequestHandler {
  return (req, res, next) =>
    parser(req, res, (err?: unknown) => {
      if (!err) return next();
      const failure = bodyFailureOf(err) ?? { kind: 'unreadable' };
      if (failure.kind === 'too_large') {
        return oauthError(res, 413, 'invalid_request', `the request body is larger than the ${failure.limit ?? 'allowed'} bytes accepted`);
      }
      return oauthError(res, 400, 'invalid_request', failure.kind === 'unparsable' ? `the request body is not valid ${format}` : 'the request body could not be read');
    });
}

type LimitVerdict = { allowed: true } | { allowed: false; limit: string; retryAfterSeconds: number };

/**
 * Answers 429 + Retry-After when a limit is reached (and counts it by limit), and 503 when the limit cannot be
 * read (a limit that fails open would be no limit). Returns whether the request was answered.
 */
async function refusedByLimit(
  res: Response,
  metrics: AppMetrics,
  check: () => Promise<LimitVerdict>,
  text: { tooMany: string; unavailable: string },
): Promise<boolean> {
  try {
    const verdict = await check();
    if (verdict.allowed) return false;
    metrics.recordLimitRefusal(verdict.limit);
    oauthError(res, 429, 'rate_limited', text.tooMany, { 'Retry-After': String(verdict.retryAfterSeconds) });
  } catch (error) {
    new Logger('AuthorizationServer').error(`${text.unavailable}: the limit store failed: ${(error as Error).message}`);
    oauthError(res, 503, 'temporarily_unavailable', text.unavailable, { 'Retry-After': '5' });
  }
  return true;
}

/**
 * Puts oidc-provider in front of Nest's body parsers (call before `listen`):
 * - every request sees the public origin (PUBLIC_BASE_URL), whatever host and port it reached us on;
 * - POST /oauth2/register: the metadata allow-list, then the limits per network and on trials;
 * - POST /oauth2/token and /oauth2/revoke: wrong client secrets limited per address, secrets digested; revocations
 *   limited per client;
 *   at the token endpoint `audience` -> `resource`, unknown scopes refused;
 * - requests naming a client by metadata document URL: limited per network;
 * - the provider answers its own paths (unframeable, JWT access tokens revocable); everything else goes on to Nest.
 */
export function mountAuthorizationServer(app: NestExpressApplication): void {
  const config = app.get<AppConfig>(APP_CONFIG);
  const provider = app.get<Provider>(OIDC_PROVIDER);
  const limiter = app.get(RegistrationRateLimiter);
  const tokenFailures = app.get(TokenFailureLimiter);
  const metrics = app.get(AppMetrics);
  const metadataFetches = app.get(MetadataFetchLimiter);
  const revocations = app.get(RevocationRateLimiter);
  const logger = new Logger('AuthorizationServer');
  const publicUrl = new URL(config.PUBLIC_BASE_URL);
  provider.use(app.get(RevokedAccessTokens).accessTokenRevocation());
  const providerCallback = provider.callback();

  // X-Forwarded-For is believed only from the configured proxies: anyone else's would bypass per-IP limits.
  app.set('trust proxy', config.TRUSTED_PROXIES);

  app.use((req: Request, _res: Response, next: NextFunction) => {
    req.headers['x-forwarded-host'] = publicUrl.host;
    req.headers['x-forwarded-proto'] = publicUrl.protocol.replace(':', '');
    next();
  });

  const json = parseOr(express.json({ limit: '16kb', type: () => true }), 'JSON');
  const form = parseOr(express.urlencoded({ extended: false, limit: '16kb' }), 'form data');

  app.use(`${OAUTH_PREFIX}/register`, (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'POST') return next();
    if (!req.is('application/json')) return oauthError(res, 400, 'invalid_request', 'send the registration as Content-Type: application/json');
    json(req, res, passingErrorsTo(next, async () => {
      const verdict = checkRegistration(req.body, publicUrl.origin);
      if (!verdict.ok) return oauthError(res, 400, verdict.error, verdict.error_description);
      const grantTypes = (req.body as { grant_types?: unknown }).grant_types;
      const grantsTrial = Array.isArray(grantTypes) && grantTypes.includes('client_credentials');
      let admission: Admission | undefined;
      const limited = await refusedByLimit(
        res,
        metrics,
        async () => {
          const admitted = await limiter.admit(req.ip ?? 'unknown', grantsTrial);
          if (admitted.allowed) admission = admitted.admitted;
          return admitted;
        },
        {
          tooMany: 'too many registrations from this network, or new trials are paused for everyone; try again later',
          unavailable: 'registration is unavailable right now',
        },
      );
      if (limited) return;
      // A registration the provider refuses hands its place back: only clients that exist use up the limits.
      res.on('finish', () => {
        if (res.statusCode === 201 || !admission) return;
        limiter.giveBack(admission).catch((error: unknown) => logger.warn(`could not give back a refused registration's count: ${(error as Error).message}`));
      });
      next();
    }));
  });

  /**
   * Where the provider checks a client secret (token and revocation endpoints): the form is parsed here, an
   * address past a failure limit gets 429, and the provider's 401 invalid_client is counted.
   */
  const countingSecretFailures = (endpoint: string, then: RequestHandler): RequestHandler => (req, res, next) => {
    if (req.method !== 'POST' || !req.is('application/x-www-form-urlencoded')) return next();
    form(req, res, passingErrorsTo(next, async () => {
      const clientId = clientIdOf(req.headers.authorization, req.body as Record<string, unknown>);
      const ip = req.ip ?? 'unknown';
      const limited = await refusedByLimit(res, metrics, () => tokenFailures.check(clientId, ip), {
        tooMany: 'too many failed client authentications from this address; try again later',
        unavailable: `the ${endpoint} is unavailable right now`,
      });
      if (limited) return;
      presentHashedSecret(req);
      res.on('finish', () => {
        if (res.statusCode !== 401) return;
        tokenFailures.failed(clientId, ip).catch((error: unknown) => logger.warn(`could not count a failed client authentication: ${(error as Error).message}`));
      });
      then(req, res, next);
    }));
  };

  app.use(
    `${OAUTH_PREFIX}/token`,
    countingSecretFailures('token endpoint', (req, res, next) => {
      const verdict = adaptTokenRequest(req.body as Record<string, string | string[] | undefined>);
      if (!verdict.ok) return oauthError(res, 400, verdict.error, verdict.error_description);
      next();
    }),
  );
  app.use(
    `${OAUTH_PREFIX}/revoke`,
    countingSecretFailures('revocation endpoint', async (req, res, next) => {
      let window: string | undefined;
      const clientId = clientIdOf(req.headers.authorization, req.body as Record<string, unknown>);
      const limited = await refusedByLimit(
        res,
        metrics,
        async () => {
          const admitted = await revocations.admit(clientId);
          if (admitted.allowed) window = admitted.window;
          return admitted;
        },
        { tooMany: 'too many revocation requests from this client; try again later', unavailable: 'the revocation endpoint is unavailable right now' },
      );
      if (limited) return;
      res.on('finish', () => {
        if (res.statusCode !== 401 || !window) return;
        revocations.giveBack(window).catch((error: unknown) => logger.warn(`could not give back a refused revocation's count: ${(error as Error).message}`));
      });
      next();
    }),
  );

  app.use(async (req: Request, res: Response, next: NextFunction) => {
    if (!servedByProvider(req.path)) return next();
    // The provider's own pages (sign-out, errors) are never framed: no clickjacking of "Sign out" or of a consent.
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
    if (metadataDocumentClientId(req.query, req.body)) {
      const limited = await refusedByLimit(res, metrics, () => metadataFetches.admit(req.ip ?? 'unknown'), {
        tooMany: 'too many requests naming clients by metadata document from this network; try again later',
        unavailable: 'the authorization server is unavailable right now',
      });
      if (limited) return;
    }
    void providerCallback(req, res);
  });
}

/** An async step of a middleware chain: its rejection goes to Express's error handler (`next`), not nowhere. */
function passingErrorsTo(next: NextFunction, step: () => Promise<unknown>): () => void {
  return () => void step().catch(next);
}
