import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { AccessTokenVerifier } from './access-token-verifier';
import { AuthProblems } from './challenge';
import type { Caller } from './caller';

/**
 * Lets a request through only with a valid access token; `request.user` is then the Caller.
 * The token is read from the Authorization header only: tokens in query strings or bodies leak into logs
 * and are refused by the MCP spec. Every refusal is a ProblemException carrying its challenge.
 * A plain guard, not a passport strategy: passport's per-request strategy copy and callbacks did nothing
 * this needs, on every call.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly verifier: AccessTokenVerifier,
    @Inject(AuthProblems) private readonly problems: AuthProblems,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request & { user?: Caller }>();
    req.user = await this.callerOf(req.headers.authorization);
    return true;
  }

  private callerOf(header: string | undefined): Promise<Caller> {
    if (!header || !/^bearer(\s|$)/i.test(header)) throw this.problems.missing();
    const match = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
    if (!match?.[1]) {
      throw this.problems.refused('invalid_request', 'the Authorization header must be `Bearer <access token>`');
    }
    return this.verifier.verify(match[1]);
  }
}
