import { Inject, Injectable, Logger } from '@nestjs/common';
import { ProtocolError, ProtocolErrorCode, type CallToolRequest, type CallToolResult } from '@modelcontextprotocol/server';
import { APP_CONFIG } from '@adintel/config';
import { findTool, parseToolArgs } from '@adintel/tool-catalogue';
import { ServiceError } from '@adintel/contracts';
import type { AppConfig } from '../config';
import type { Caller } from '../auth/caller';
import { MCP_IDEMPOTENCY_META } from '../idempotency/idempotency-key';
import { ToolInvoker } from '../invocation/tool-invoker.service';
import { invalidArguments, problemFromServiceError, renderProblem, type ProblemSpec } from '../problems/problem';
import type { JsonRpcId } from './json-rpc-envelope';
import { MediaContent } from './media-content';
import { toolFailure, toolResult } from './mcp-tools';

/**
 * How a tools/call is answered, on either protocol era (McpServerFactory registers it as the SDK server's handler).
 * An unknown tool is a JSON-RPC -32602 (ProtocolError); every other failure is an `isError` result.
 */
@Injectable()
export class McpToolCalls {
  private readonly logger = new Logger('McpServer');

  constructor(
    private readonly invoker: ToolInvoker,
    private readonly media: MediaContent,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `params` were checked against the SDK's CallToolRequest schema (checkEnvelope, then the SDK itself). */
  async call(params: CallToolRequest['params'], caller: Caller, requestId: string, callId: JsonRpcId): Promise<CallToolResult> {
    const tool = findTool(params.name);
    if (!tool) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool ${JSON.stringify(params.name)}; tools/list names the available tools`);
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
      // After the charge settled: pictures ride with the record and never fail the call (media-content.ts).
      return toolResult(result, receipt, requestId, await this.media.attachments(tool, result, requestId));
    } catch (error) {
      if (error instanceof ServiceError) return fail(problemFromServiceError(error, tool));
      this.logger.error(error instanceof Error ? error : new Error(String(error)));
      return fail({ status: 500, code: 'internal', detail: 'the call failed on our side; it was not charged' });
    }
  }
}
