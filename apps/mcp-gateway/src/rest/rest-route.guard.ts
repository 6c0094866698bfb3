import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { REST_PREFIX, TOOLS } from '@adintel/tool-catalogue';
import { ProblemException } from '../problems/problem';
import { RouteTable, type RouteMatch } from './route-table';


/** The tool a REST request names, resolved before authentication so an unknown path is a 404 for everyone. */
@Injectable()
export class RestRouteGuard implements CanActivate {
  private readonly routes = new RouteTable(TOOLS);

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request & { route?: unknown; restRoute?: RouteMatch }>();
    const [target = ''] = req.originalUrl.split('?');
    const path = target.slice(REST_PREFIX.length);
    const match = this.routes.match(path);
    if (!match) {
      throw new ProblemException({
        status: 404,
        code: 'not_found',
        detail: `no resource at ${REST_PREFIX}${path}; ${REST_PREFIX}/openapi.json lists every path`,
      });
    }
    if (req.method !== 'GET') {
      throw new ProblemException({
        status: 405,
        code: 'method_not_allowed',
        detail: `${REST_PREFIX}${match.tool.http.path} is read-only: use GET`,
        headers: { Allow: 'GET' },
      });
    }
    req.restRoute = match;
    return true;
  }
}

export const routeOf = (req: Request): RouteMatch => {
  const match = (req as Request & { restRoute?: RouteMatch }).restRoute;
  if (!match) throw new Error('RestRouteGuard did not run');
  return match;
};
