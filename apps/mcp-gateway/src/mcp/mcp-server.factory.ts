import { Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../auth/caller';
import { McpToolCalls } from './mcp-tool-calls';
import { MCP_TOOLS, SERVER_INFO, SERVER_INSTRUCTIONS } from './mcp-tools';
import { McpViews, VIEW_RESOURCES } from './mcp-views';

/**
 * A low-level MCP Server for one HTTP request (stateless Streamable HTTP): SDK 1.32 binds a server to one
 * transport at a time and a stateless transport to one request, so concurrent requests cannot share either. The low-level Server lets
 * tools/list come straight from the catalogue and an unknown tool be a JSON-RPC -32602 error.
 * resources/* serve the MCP Apps views that catalogue tools name (hosts without the extension ignore them).
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
  ) {}

  create(caller: Caller, requestId: string): Server {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
      instructions: SERVER_INSTRUCTIONS,
      jsonSchemaValidator: this.jsonSchemaValidator,
    });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: MCP_TOOLS }));
    server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: VIEW_RESOURCES }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
    server.setRequestHandler(ReadResourceRequestSchema, (request) => this.views.read(request.params.uri));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      this.toolCalls.call(request.params, caller, requestId, extra.requestId),
    );
    return server;
  }
}
