import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { AccessTokenVerifier } from './access-token-verifier';
import { AuthProblems } from './challenge';
import type { Caller } from './caller';

export const BEARER_STRATEGY = 'bearer-jwt';

type Verify = (token: string, done: (error: unknown, caller?: Caller | false) => void) => void;

/**
 * A passport strategy that reads the token from the Authorization header only:
 * tokens in query strings or bodies leak into logs and are refused by the MCP spec.
 * passport gives each request a copy of the strategy with `success` and `error` attached.
 */
class HeaderBearerStrategy {
  readonly name = BEARER_STRATEGY;
  declare success: (caller: Caller) => void;
  declare error: (error: unknown) => void;

  constructor(
    private readonly problems: AuthProblems,
    private readonly verifyToken: Verify,
  ) {}

  authenticate(req: Request): void {
    const header = req.headers.authorization;
    if (!header || !/^bearer(\s|$)/i.test(header)) return this.error(this.problems.missing());
    const token = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header)?.[1];
    if (token === undefined) {
      return this.error(this.problems.refused('invalid_request', 'the Authorization header must be `Bearer <access token>`'));
    }
    this.verifyToken(token, (error, caller) => {
      if (error) return this.error(error);
      if (!caller) return this.error(this.problems.refused('invalid_token', 'the access token is not acceptable'));
      return this.success(caller);
    });
  }
}

@Injectable()
export class JwtBearerStrategy extends PassportStrategy(HeaderBearerStrategy, BEARER_STRATEGY) {
  constructor(
    private readonly verifier: AccessTokenVerifier,
    @Inject(AuthProblems) problems: AuthProblems,
  ) {
    super(problems);
  }

  validate(token: string): Promise<Caller> {
    return this.verifier.verify(token);
  }
}
