import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** Who is calling, as proven by a verified access token. The token itself never leaves the gateway. */
export interface Caller {
  /** The token's `sub`: an agent's client id or an owner's account id; metering's `caller_id`. */
  readonly sub: string;
  readonly clientId?: string;
  readonly scopes: readonly string[];
  /** Seconds since the epoch. */
  readonly expiresAt: number;
  /** The token's `jti`, by which it can be revoked. */
  readonly tokenId?: string;
  /** The grant (an owner's approval of a client) the token was issued on: revoking it revokes the token. */
  readonly grantId?: string;
}

export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): Caller => {
  const { user } = context.switchToHttp().getRequest<{ user?: Caller }>();
  if (!user) throw new Error('CurrentCaller used on a route without BearerAuthGuard');
  return user;
});
