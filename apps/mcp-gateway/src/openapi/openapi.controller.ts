import { Controller, Get, Header, Inject, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { join } from 'node:path';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import { APP_CONFIG } from '@adintel/config';
import { REST_PREFIX } from '@adintel/tool-catalogue';
import type { AppConfig } from '../config';
import { ProblemException } from '../problems/problem';
import { buildOpenApi } from './openapi.builder';
import { DOCS_ASSETS, DOCS_CSP, DOCS_INIT_SCRIPT, docsPage } from './docs-page';

/** Public: the description of the API and its reference page need no token. */
@Controller(REST_PREFIX)
export class OpenApiController {
  private readonly document: Record<string, unknown>;
  private readonly page = docsPage();
  private readonly assetsDir = getAbsoluteFSPath();

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.document = buildOpenApi(config.PUBLIC_BASE_URL);
  }

  @Get('openapi.json')
  @Header('Cache-Control', 'public, max-age=300')
  @Header('Access-Control-Allow-Origin', '*')
  openapi() {
    return this.document;
  }

  @Get('docs')
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Content-Security-Policy', DOCS_CSP)
  docs() {
    return this.page;
  }

  @Get('docs/init.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  init() {
    return DOCS_INIT_SCRIPT;
  }

  @Get('docs/:asset')
  asset(@Param('asset') asset: string, @Res() res: Response) {
    if (!DOCS_ASSETS.includes(asset)) {
      throw new ProblemException({ status: 404, code: 'not_found', detail: `no documentation asset ${asset}` });
    }
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.sendFile(join(this.assetsDir, asset));
  }
}
