import { Body, Controller, Get, HttpStatus, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { fromOurOrigin } from '../web/form-tokens';
import { formString as str, sendPage as send, throttledMessage } from '../web/html';
import { LoginThrottledError } from '../owners/login-throttle';
import { consentPage, interactionErrorPage, loginPage } from './interaction-pages';
import { InteractionService, type InteractionDetails } from './interaction.service';

interface LoginBody {
  email?: unknown;
  password?: unknown;
  csrf?: unknown;
}

/** Login and consent pages of the authorization-code flow (server-rendered, no scripts). */
@Controller('oauth2/interaction/:uid')
export class InteractionController {
  constructor(private readonly interactions: InteractionService) {}

  @Get()
  async show(@Req() req: Request, @Res() res: Response) {
    await this.withDetails(req, res, async (details) => {
      const unknown = this.interactions.unknownScopes(details);
      if (unknown.length) {
        return this.interactions.finish(
          req,
          res,
          { error: 'invalid_scope', error_description: `unknown scope ${unknown.join(' ')}; this server offers mcp:read` },
          false,
        );
      }
      const view = await this.interactions.view(details);
      send(res, HttpStatus.OK, view.prompt === 'login' ? loginPage(view) : consentPage(view));
    });
  }

  @Post('login')
  async login(@Param('uid') uid: string, @Body() body: LoginBody, @Req() req: Request, @Res() res: Response) {
    await this.withDetails(req, res, async (details) => {
      if (!this.checkForm(req, res, uid, details, body.csrf)) return;
      const view = await this.interactions.view(details);
      if (view.prompt !== 'login') return send(res, HttpStatus.OK, consentPage(view));
      const email = str(body.email, 254);
      const owner = await this.interactions.authenticate(email, str(body.password, 1024), req.ip ?? 'unknown').catch((error: unknown) => {
        if (!(error instanceof LoginThrottledError)) throw error;
        res.set('Retry-After', String(error.retryAfterSeconds));
        send(res, HttpStatus.TOO_MANY_REQUESTS, loginPage(view, { email, error: throttledMessage(error.retryAfterSeconds) }));
        return null;
      });
      if (owner === null) return;
      if (!owner) return send(res, HttpStatus.UNAUTHORIZED, loginPage(view, { email, error: 'Wrong email or password.' }));
      await this.interactions.finish(req, res, { login: { accountId: owner.owner_id } }, false);
    });
  }

  @Post('confirm')
  async confirm(@Param('uid') uid: string, @Body() body: LoginBody, @Req() req: Request, @Res() res: Response) {
    await this.withDetails(req, res, async (details) => {
      if (!this.checkForm(req, res, uid, details, body.csrf)) return;
      if (details.prompt.name !== 'consent') return send(res, HttpStatus.OK, loginPage(await this.interactions.view(details)));
      await this.interactions.finish(req, res, await this.interactions.grantConsent(details), true);
    });
  }

  @Post('abort')
  async abort(@Param('uid') uid: string, @Body() body: LoginBody, @Req() req: Request, @Res() res: Response) {
    await this.withDetails(req, res, async (details) => {
      if (!this.checkForm(req, res, uid, details, body.csrf)) return;
      await this.interactions.finish(req, res, { error: 'access_denied', error_description: 'the owner denied access' }, false);
    });
  }

  private checkForm(req: Request, res: Response, uid: string, details: InteractionDetails, csrf: unknown): boolean {
    if (details.uid === uid && this.interactions.validForm(uid, csrf) && fromOurOrigin(req, this.interactions.config.PUBLIC_BASE_URL)) return true;
    send(res, HttpStatus.FORBIDDEN, interactionErrorPage('Form expired', 'This form is no longer valid. Start the sign-in again.'));
    return false;
  }

  /** Interaction errors (expired, cookie missing, wrong browser) become a page, never a 500. */
  private async withDetails(req: Request, res: Response, handle: (details: InteractionDetails) => Promise<unknown>) {
    let details: InteractionDetails;
    try {
      details = await this.interactions.details(req, res);
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      if (!status || status >= 500) throw error;
      return send(
        res,
        HttpStatus.BAD_REQUEST,
        interactionErrorPage('Sign-in expired', 'This sign-in request has expired or was started in another browser.'),
      );
    }
    await handle(details);
  }
}
