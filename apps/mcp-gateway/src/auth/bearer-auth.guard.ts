import { Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { BEARER_STRATEGY } from './bearer.strategy';
import type { Caller } from './caller';

/** Lets a request through only with a valid access token; `request.user` is then the Caller. */
@Injectable()
export class BearerAuthGuard extends AuthGuard(BEARER_STRATEGY) {
  override handleRequest<T = Caller>(error: unknown, caller: T | false): T {
    // The strategy answers every refusal with a ProblemException carrying its challenge.
    if (error) throw error;
    if (!caller) throw new Error('bearer strategy ended without a caller or an error');
    return caller;
  }
}
