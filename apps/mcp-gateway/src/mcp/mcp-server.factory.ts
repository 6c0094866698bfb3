import { Injectable } from '@nestjs/common';
import { Server, type AuthInfo, type McpRequestContext } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { Caller } from '../auth/caller';
import { MediaResources } from '../media/media-resources';
import { McpToolCalls } from './mcp-tool-calls';
import { MCP_TOOLS, SERVER_INFO, SERVER_INSTRUCTIONS } from './mcp-tools';
import { McpViews, VIEW_RESOURCES } from './mcp-views';

/**
 * Cache hints of the 2026-07-28 revision (2025-era answers never carry them). The tool list and the views change
 * only with a deployment, and are the same for every caller, so shared caches may keep them for an hour; every other
 * answer depends on the caller and stays `private` with `ttlMs: 0` (the SDK's default). The `resources/read` hint is
 * the views'. A media file read (MediaResources) is per caller and charged: on 2026-07-28 it sets `private`,
 * `ttlMs: 0` on its result, which the SDK's encoder prefers over this per-method hint. The low-level Server has no
 * per-resource hint (McpServer.registerResource's `cacheHint`), and the 2025-era encoder passes result fields
 * through, hence the era check.
 */
const CACHE_HINTS = {
  'tools/list': { ttlMs: 3_600_000, cacheScope: 'public' },
  'resources/list': { ttlMs: 3_600_000, cacheScope: 'public' },
  'resources/templates/list': { ttlMs: 3_600_000, cacheScope: 'public' },
  'resources/read': { ttlMs: 3_600_000, cacheScope: 'public' },
  'server/discover': { ttlMs: 3_600_000, cacheScope: 'public' },
} as const;

/** What the controller hands the SDK about one request, in `AuthInfo.extra` (the token itself never goes further). */
interface RequestExtra {
  readonly caller: Caller;
  readonly requestId: string;
}

/** The AuthInfo the SDK passes to the factory; its `token` stays empty: nothing past the guard needs the token. */
export function authInfoFor(caller: Caller, requestId: string): AuthInfo {
  const extra: RequestExtra = { caller, requestId };
  return { token: '', clientId: caller.clientId ?? caller.sub, scopes: [...caller.scopes], expiresAt: caller.expiresAt, extra: { ...extra } };
}

/**
 * A low-level MCP Server for one HTTP request, on either protocol era: `createMcpHandler` (2026-07-28) and the
 * stateless 2025-era transport both build one per request from `forRequest`, so the two eras cannot drift apart.
 * The low-level Server lets tools/list come straight from the catalogue and an unknown tool be a JSON-RPC -32602.
 * resources/* serve the MCP Apps views that catalogue tools name (hosts without the extension ignore them) and the
 * creatives' media files by their https URLs (MediaResources).
 */
@Injectable()
export class McpServerFactory {
  /**
   * One for every server: left to itself, each `new Server` builds its own Ajv instance with every format, the
   * largest share of the MCP path's CPU time in the gateway's profile (apps/e2e/bench). It holds no request state.
   */
  private readonly jsonSchemaValidator = new AjvJsonSchemaValidator();

  constructor(
    private readonly toolCalls: McpToolCalls,
    private readonly views: McpViews,
    private readonly media: MediaResources,
  ) {}

  /** createMcpHandler's factory: the caller comes from the AuthInfo the controller set after the bearer guard. */
  readonly forRequest = (context: Pick<McpRequestContext, 'authInfo'>): Server => {
    const extra = context.authInfo?.extra as RequestExtra | undefined;
    // The controller runs every request through the bearer guard first; a request without a caller is a wiring bug.
    if (!extra?.caller) throw new Error('MCP request reached the server without a verified caller');
    return this.create(extra.caller, extra.requestId);
  };

  create(caller: Caller, requestId: string): Server {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
      instructions: SERVER_INSTRUCTIONS,
      jsonSchemaValidator: this.jsonSchemaValidator,
      cacheHints: CACHE_HINTS,
    });
    server.setRequestHandler('tools/list', () => ({ tools: MCP_TOOLS }));
    server.setRequestHandler('resources/list', () => ({ resources: VIEW_RESOURCES }));
    server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: this.media.templates }));
    // A media URL (a resource_link of get_ad/get_creative) is a paid file read; anything else is a view.
    // Only a 2026-07-28 request carries the `_meta` envelope: the cache fields a media read sets belong to that era.
    server.setRequestHandler('resources/read', (request, context) =>
      this.media.handles(request.params.uri)
        ? this.media.read(request.params.uri, { meta: request.params._meta, modern: context.mcpReq.envelope !== undefined, caller, requestId })
        : this.views.read(request.params.uri),
    );
    server.setRequestHandler('tools/call', (request, context) => this.toolCalls.call(request.params, caller, requestId, context.mcpReq.id));
    return server;
  }
}
