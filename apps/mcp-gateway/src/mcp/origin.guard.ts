import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../config';
import { ProblemException } from '../problems/problem';

/**
 * DNS-rebinding defence of the MCP spec: a browser page may only reach /mcp from an allowed origin.
 * Agents and servers send no Origin and pass.
 */
@Injectable()
export class OriginGuard implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const origin = context.switchToHttp().getRequest<Request>().headers.origin;
    if (origin === undefined || this.config.MCP_ALLOWED_ORIGINS.includes(origin)) return true;
    throw new ProblemException({
      status: 403,
      code: 'origin_not_allowed',
      detail: `requests from the origin ${JSON.stringify(origin)} are not accepted; allowed: ${this.config.MCP_ALLOWED_ORIGINS.join(', ')}`,
    });
  }
}
