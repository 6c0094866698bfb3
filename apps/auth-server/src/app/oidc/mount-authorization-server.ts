import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type Provider from 'oidc-provider';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../../config';
import { OAUTH_PREFIX } from './oidc-provider.factory';
import { OIDC_PROVIDER } from './oidc.module';
import { checkRegistration } from './registration-policy';
import { RegistrationRateLimiter } from './registration-rate-limiter';
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

/** Runs a body parser and answers a malformed body with an OAuth error instead of an HTML page. */
function parseOr(parser: RequestHandler, error: string): RequestHandler {
  return (req, res, next) =>
    parser(req, res, (err?: unknown) => (err ? oauthError(res, 400, error, `the request body cannot be parsed: ${(err as Error).message}`) : next()));
}

/**
 * Puts oidc-provider in front of Nest's body parsers (call before `listen`):
 * - every request sees the public origin (PUBLIC_BASE_URL), whatever host and port it reached us on;
 * - POST /oauth2/register: per-IP rate limit, then the metadata allow-list;
 * - POST /oauth2/token: `audience` -> `resource`, unknown scopes refused;
 * - the provider answers its own paths; everything else goes on to Nest.
 */
export function mountAuthorizationServer(app: NestExpressApplication): void {
  const config = app.get<AppConfig>(APP_CONFIG);
  const provider = app.get<Provider>(OIDC_PROVIDER);
  const limiter = app.get(RegistrationRateLimiter);
  const logger = new Logger('AuthorizationServer');
  const publicUrl = new URL(config.PUBLIC_BASE_URL);
  const providerCallback = provider.callback();

  app.set('trust proxy', config.TRUST_PROXY_HOPS);

  app.use((req: Request, _res: Response, next: NextFunction) => {
    req.headers['x-forwarded-host'] = publicUrl.host;
    req.headers['x-forwarded-proto'] = publicUrl.protocol.replace(':', '');
    next();
  });

  const json = parseOr(express.json({ limit: '16kb', type: () => true }), 'invalid_request');
  const form = parseOr(express.urlencoded({ extended: false, limit: '16kb' }), 'invalid_request');

  app.use(`${OAUTH_PREFIX}/register`, async (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'POST') return next();
    try {
      const verdict = await limiter.hit(req.ip ?? 'unknown');
      if (!verdict.allowed) {
        return oauthError(res, 429, 'rate_limited', 'too many registrations from this address; try again later', {
          'Retry-After': String(verdict.retryAfterSeconds),
        });
      }
    } catch (error) {
      logger.error(`registration rate limit unavailable: ${(error as Error).message}`);
      return oauthError(res, 503, 'temporarily_unavailable', 'registration is unavailable right now', { 'Retry-After': '5' });
    }
    if (!req.is('application/json')) return oauthError(res, 400, 'invalid_request', 'send the registration as Content-Type: application/json');
    json(req, res, () => {
      const verdict = checkRegistration(req.body);
      if (!verdict.ok) return oauthError(res, 400, verdict.error, verdict.error_description);
      next();
    });
  });

  app.use(`${OAUTH_PREFIX}/token`, (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'POST' || !req.is('application/x-www-form-urlencoded')) return next();
    form(req, res, () => {
      const verdict = adaptTokenRequest(req.body as Record<string, string | string[] | undefined>);
      if (!verdict.ok) return oauthError(res, 400, verdict.error, verdict.error_description);
      next();
    });
  });

  app.use((req: Request, res: Response, next: NextFunction) => {
    if (!servedByProvider(req.path)) return next();
    void providerCallback(req, res);
  });
}
