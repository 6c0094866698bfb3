import { Controller, Get, Header, Inject } from '@nestjs/common';
import { APP_CONFIG, mcpResourceUrl } from '@adintel/config';
import { MCP_SCOPE } from '@adintel/contracts';
import { REST_DOCS_PATH } from '@adintel/tool-catalogue';
import type { AppConfig } from '../config';

/** RFC 9728 protected resource metadata: how a client learns which authorization server to ask. */
@Controller('.well-known/oauth-protected-resource')
export class ProtectedResourceController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get()
  @Header('Cache-Control', 'public, max-age=3600')
  @Header('Access-Control-Allow-Origin', '*')
  root() {
    return this.metadata();
  }

  @Get('mcp')
  @Header('Cache-Control', 'public, max-age=3600')
  @Header('Access-Control-Allow-Origin', '*')
  mcp() {
    return this.metadata();
  }

  /** Both surfaces accept the one audience `{base}/mcp`, so both documents name that resource. */
  private metadata() {
    const base = this.config.PUBLIC_BASE_URL;
    return {
      resource: mcpResourceUrl(base),
      authorization_servers: [this.config.AUTH_ISSUER],
      scopes_supported: [MCP_SCOPE],
      bearer_methods_supported: ['header'],
      resource_name: 'Ad intelligence (MCP and REST)',
      resource_documentation: `${base}${REST_DOCS_PATH}`,
    };
  }
}
