import { randomBytes } from 'node:crypto';
import { BadRequestException, Body, Controller, Get, HttpStatus, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { CookieOptions, Request, Response } from 'express';
import { APP_CONFIG } from '@adintel/config';
import { ServiceError } from '@adintel/contracts';
import type { AppConfig } from '../../config';
import type { KeyMaterial } from '../keys/key-material';
import { KEY_MATERIAL } from '../oidc/oidc.module';
import type { OwnerRecord } from '../owners/owners.repository';
import { FormTokens, fromOurOrigin } from '../web/form-tokens';
import { formString as str, sendPage as send, throttledMessage } from '../web/html';
import { LoginThrottledError } from '../owners/login-throttle';
import { accountLoginPage, accountPage, accountUnavailablePage, NOTICES } from './account-pages';
import { AccountActionError, AccountService } from './account.service';

const SESSION_COOKIE = 'account_session';
/** Login CSRF: a nonce cookie set with the form; the form carries an HMAC of it. */
const LOGIN_COOKIE = 'account_login';

type FormBody = Record<string, unknown>;

@Controller('account')
export class AccountController {
  private readonly tokens: FormTokens;
  private readonly cookieBase: CookieOptions;

  constructor(
    private readonly accounts: AccountService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(KEY_MATERIAL) keys: KeyMaterial,
  ) {
    this.tokens = new FormTokens(keys.cookieKeys);
    this.cookieBase = { httpOnly: true, sameSite: 'lax', path: '/account', secure: config.PUBLIC_BASE_URL.startsWith('https:') };
  }

  @Get()
  async show(@Req() req: Request, @Res() res: Response, @Query('notice') notice?: string) {
    const session = await this.session(req);
    if (!session) return res.redirect(HttpStatus.SEE_OTHER, '/account/login');
    await this.renderAccount(res, session.owner, session.csrf, HttpStatus.OK, { notice: notice ? NOTICES[notice] : undefined });
  }

  @Get('login')
  async loginForm(@Req() req: Request, @Res() res: Response) {
    if (await this.session(req)) return res.redirect(HttpStatus.SEE_OTHER, '/account');
    send(res, HttpStatus.OK, accountLoginPage(this.issueLoginToken(res)));
  }

  @Post('login')
  async login(@Body() body: FormBody, @Req() req: Request, @Res() res: Response) {
    const nonce = cookie(req, LOGIN_COOKIE);
    if (!nonce || !this.tokens.verify(`account-login:${nonce}`, body['csrf']) || !fromOurOrigin(req, this.config.PUBLIC_BASE_URL)) {
      return send(res, HttpStatus.FORBIDDEN, accountLoginPage(this.issueLoginToken(res), { error: 'The form expired. Sign in again.' }));
    }
    const email = str(body['email'], 254);
    let sessionId: string | undefined;
    try {
      sessionId = await this.accounts.signIn(email, str(body['password'], 1024), req.ip ?? 'unknown');
    } catch (error) {
      if (!(error instanceof LoginThrottledError)) throw error;
      res.set('Retry-After', String(error.retryAfterSeconds));
      const page = accountLoginPage(this.issueLoginToken(res), { email, error: throttledMessage(error.retryAfterSeconds) });
      return send(res, HttpStatus.TOO_MANY_REQUESTS, page);
    }
    if (!sessionId) {
      return send(res, HttpStatus.UNAUTHORIZED, accountLoginPage(this.issueLoginToken(res), { email, error: 'Wrong email or password.' }));
    }
    res.clearCookie(LOGIN_COOKIE, this.cookieBase);
    res.cookie(SESSION_COOKIE, sessionId, { ...this.cookieBase, maxAge: this.accountsTtlMs() });
    res.redirect(HttpStatus.SEE_OTHER, '/account');
  }

  @Post('logout')
  async logout(@Body() body: FormBody, @Req() req: Request, @Res() res: Response) {
    const session = await this.session(req);
    // Without its CSRF token a sign-out is another site's doing: the owner stays signed in.
    if (session && !this.validForm(req, session.id, body)) return res.redirect(HttpStatus.SEE_OTHER, '/account');
    if (session) await this.accounts.signOut(session.id);
    res.clearCookie(SESSION_COOKIE, this.cookieBase);
    res.redirect(HttpStatus.SEE_OTHER, '/account/login');
  }

  @Post('agents')
  async attach(@Body() body: FormBody, @Req() req: Request, @Res() res: Response) {
    const session = await this.session(req);
    if (!session) return res.redirect(HttpStatus.SEE_OTHER, '/account/login');
    if (!this.validForm(req, session.id, body)) return this.renderAccount(res, session.owner, session.csrf, HttpStatus.FORBIDDEN, { error: 'The form expired; try again.' });
    const clientId = str(body['client_id'], 128);
    try {
      await this.accounts.attach(session.owner, clientId, str(body['client_secret'], 512), req.ip ?? 'unknown');
    } catch (error) {
      if (!(error instanceof AccountActionError)) throw error;
      return this.renderAccount(res, session.owner, session.csrf, error.status, { error: error.message, clientId });
    }
    res.redirect(HttpStatus.SEE_OTHER, '/account?notice=attached');
  }

  @Post('agents/:agentId/detach')
  detach(@Param('agentId') agentId: string, @Body() body: FormBody, @Req() req: Request, @Res() res: Response) {
    return this.act(req, res, body, 'detached', (owner) => this.accounts.detach(owner, agentId));
  }

  @Post('clients/:grantId/revoke')
  revokeClient(@Param('grantId') grantId: string, @Body() body: FormBody, @Req() req: Request, @Res() res: Response) {
    return this.act(req, res, body, 'revoked', (owner) => this.accounts.revokeClient(owner, grantId.slice(0, 128)));
  }

  /** A button of the account page: signed in, its form token, the action, then back to the page with `notice`. */
  private async act(req: Request, res: Response, body: FormBody, notice: keyof typeof NOTICES, action: (owner: OwnerRecord) => Promise<unknown>) {
    const session = await this.session(req);
    if (!session) return res.redirect(HttpStatus.SEE_OTHER, '/account/login');
    if (!this.validForm(req, session.id, body)) return this.renderAccount(res, session.owner, session.csrf, HttpStatus.FORBIDDEN, { error: 'The form expired; try again.' });
    try {
      await action(session.owner);
    } catch (error) {
      if (!(error instanceof AccountActionError)) throw error;
      return this.renderAccount(res, session.owner, session.csrf, error.status, { error: error.message });
    }
    res.redirect(HttpStatus.SEE_OTHER, `/account?notice=${notice}`);
  }

  private async renderAccount(res: Response, owner: OwnerRecord, csrf: string, status: number, messages: { notice?: string; error?: string; clientId?: string }) {
    try {
      const overview = await this.accounts.overview(owner);
      send(res, status, accountPage(overview, csrf, messages));
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      send(res, HttpStatus.SERVICE_UNAVAILABLE, accountUnavailablePage(owner.email, csrf, 'Usage accounting is unavailable right now; try again in a moment.'));
    }
  }

  private async session(req: Request): Promise<{ id: string; owner: OwnerRecord; csrf: string } | undefined> {
    const id = cookie(req, SESSION_COOKIE);
    const owner = id ? await this.accounts.ownerFor(id) : undefined;
    return id && owner ? { id, owner, csrf: this.tokens.issue(`account:${id}`) } : undefined;
  }

  private validForm(req: Request, sessionId: string, body: FormBody): boolean {
    return this.tokens.verify(`account:${sessionId}`, body['csrf']) && fromOurOrigin(req, this.config.PUBLIC_BASE_URL);
  }

  private issueLoginToken(res: Response): string {
    const nonce = randomBytes(16).toString('base64url');
    res.cookie(LOGIN_COOKIE, nonce, { ...this.cookieBase, maxAge: 3_600_000 });
    return this.tokens.issue(`account-login:${nonce}`);
  }

  private accountsTtlMs() {
    return this.config.ACCOUNT_SESSION_TTL_SECONDS * 1000;
  }
}

/** A cookie's value; one a client mangled (bad percent-encoding) is the client's error: 400 naming it, never a 500. */
function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key !== name) continue;
    try {
      return decodeURIComponent(rest.join('='));
    } catch {
      throw new BadRequestException(`the cookie ${name} is malformed (invalid percent-encoding): clear it and sign in again`);
    }
  }
  return undefined;
}
