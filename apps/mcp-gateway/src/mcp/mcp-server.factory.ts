import { Inject, Injectable, Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  McpError,
  type CallToolRequest,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { APP_CONFIG } from '@adintel/config';
import { findTool, parseToolArgs } from '@adintel/tool-catalogue';
import { ServiceError } from '@adintel/contracts';
import type { AppConfig } from '../config';
import type { Caller } from '../auth/caller';
import { MCP_IDEMPOTENCY_META } from '../idempotency/idempotency-key';
import { ToolInvoker } from '../invocation/tool-invoker.service';
import { invalidArguments, problemFromServiceError, renderProblem, type ProblemSpec } from '../problems/problem';
import { MCP_TOOLS, SERVER_INFO, SERVER_INSTRUCTIONS, toolFailure, toolResult } from './mcp-tools';
import { McpViews, VIEW_RESOURCES } from './mcp-views';

/**
 * A low-level MCP Server for one HTTP request (stateless Streamable HTTP): SDK 1.32 binds a server to one
 * transport at a time and a stateless transport to one request, so concurrent requests cannot share either. The low-level Server lets
 * tools/list come straight from the catalogue and an unknown tool be a JSON-RPC -32602 error.
 * resources/* serve the MCP Apps views that catalogue tools name (hosts without the extension ignore them).
 */
@Injectable()
export class McpServerFactory {
  private readonly logger = new Logger('McpServer');
  /**
   * One for every server: left to itself, each `new Server` builds its own Ajv instance with every format, the
   * largest share of the MCP path's CPU time in the gateway's profile (apps/e2e/bench). It holds no request state.
   */
  private readonly jsonSchemaValidator = new AjvJsonSchemaValidator();

  constructor(
    private readonly invoker: ToolInvoker,
    private readonly views: McpViews,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
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
      this.callTool(request.params, caller, requestId, extra.requestId),
    );
    return server;
  }

  private async callTool(
    params: CallToolRequest['params'],
    caller: Caller,
    requestId: string,
    callId: string | number,
  ): Promise<CallToolResult> {
    const tool = findTool(params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(params.name)}; tools/list names the available tools`);
    }
    const fail = (spec: ProblemSpec) =>
      toolFailure(renderProblem(spec, { baseUrl: this.config.PUBLIC_BASE_URL, instance: `/mcp#${tool.name}`, requestId }), requestId);

    const parsed = parseToolArgs(tool, 'mcp', params.arguments ?? {});
    if (!parsed.ok) {
      return fail(invalidArguments(parsed.errors));
    }
    try {
      const idempotencyKey = params._meta?.[MCP_IDEMPOTENCY_META] as string | undefined; // checked by the controller
      const { result, receipt } = await this.invoker.invoke({ tool, args: parsed.args, caller, requestId, callId, idempotencyKey });
      return toolResult(result, receipt, requestId);
    } catch (error) {
      if (error instanceof ServiceError) return fail(problemFromServiceError(error, tool));
      this.logger.error(error instanceof Error ? error : new Error(String(error)));
      return fail({ status: 500, code: 'internal', detail: 'the call failed on our side; it was not charged' });
    }
  }
}
