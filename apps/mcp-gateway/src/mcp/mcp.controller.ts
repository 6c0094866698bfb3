import { Controller, Delete, Get, Inject, Options, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { APP_CONFIG } from '@adintel/config';
import { currentRequestId } from '@adintel/observability';
import type { AppConfig } from '../config';
import { BearerAuthGuard } from '../auth/bearer-auth.guard';
import { CurrentCaller, type Caller } from '../auth/caller';
import { ProblemException } from '../problems/problem';
import { McpServerFactory } from './mcp-server.factory';
import { allowOrigin, answerOptions } from './cors';
import { carryIdempotencyKey } from './idempotency-meta';
import { checkEnvelope, directToolCall, jsonRpcError, type DirectToolCall, type EnvelopeRejection } from './json-rpc-envelope';
import { McpToolCalls } from './mcp-tool-calls';
import { toolCallAnswer, toolCallError } from './mcp-tools';
import { OriginGuard } from './origin.guard';

/** MCP Streamable HTTP, stateless: every POST gets its own server and transport, but for a plain tools/call answered in JSON. */
@Controller('mcp')
export class McpController {
  constructor(
    private readonly servers: McpServerFactory,
    private readonly toolCalls: McpToolCalls,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @UseGuards(OriginGuard, BearerAuthGuard)
  async post(@Req() req: Request, @Res() res: Response, @CurrentCaller() caller: Caller): Promise<void> {
    allowOrigin(req, res, this.config.MCP_ALLOWED_ORIGINS);
    const streaming = responseMode(req.headers.accept) === 'sse';
    const requestId = currentRequestId() ?? 'unknown';
    // Another Content-Type is left to the SDK, which answers 415.
    if (req.is('application/json')) {
      const verdict = checkEnvelope(req.body);
      const rejection = verdict.ok ? carryIdempotencyKey(req.body, req.headers['idempotency-key']) : verdict.rejection;
      if (rejection) {
        sendRejection(res, rejection, streaming);
        return;
      }
      const call = streaming ? undefined : directToolCall(req.body, req.headers['mcp-protocol-version']);
      if (call) {
        await this.answerToolCall(res, call, caller, requestId);
        return;
      }
    }
    // The SDK insists on both media types; a client that accepts one of them is served in that one.
    req.headers.accept = 'application/json, text/event-stream';
    const server = this.servers.create(caller, requestId);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streaming });
    // Closing the server closes its transport (closing both would end the connection twice).
    res.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  /**
   * The JSON answer to a plain tools/call (nearly every call an agent makes), written here rather than by a
   * per-request SDK server and transport: those validate the message three more times, the result once more,
   * serialise the result twice and go through a web Request/Response pair, the largest share of the
   * gateway's CPU per MCP call in its profile (apps/e2e/bench). The answer is the one the SDK would send.
   */
  private async answerToolCall(res: Response, call: DirectToolCall, caller: Caller, requestId: string): Promise<void> {
    let body: string;
    try {
      body = toolCallAnswer(call.id, await this.toolCalls.call(call.params, caller, requestId, call.id));
    } catch (error) {
      body = toolCallError(call.id, error);
    }
    res.status(200).setHeader('Content-Type', 'application/json');
    res.end(body);
  }

  /** CORS preflight of browser-based clients; never a 404. */
  @Options()
  options(@Req() req: Request, @Res() res: Response): void {
    answerOptions(req, res, this.config.MCP_ALLOWED_ORIGINS);
  }

  /** Stateless: no server-initiated stream to open. */
  @Get()
  getNotAllowed(): never {
    throw postOnly();
  }

  /** Stateless: no session to end. */
  @Delete()
  deleteNotAllowed(): never {
    throw postOnly();
  }
}

const postOnly = () =>
  new ProblemException({
    status: 405,
    code: 'method_not_allowed',
    detail: 'this MCP endpoint is stateless: send JSON-RPC requests with POST',
    headers: { Allow: 'POST, OPTIONS' },
  });

/** A request with bad params is answered in the mode the client asked for, like any other answer. */
function sendRejection(res: Response, rejection: EnvelopeRejection, streaming: boolean): void {
  const body = jsonRpcError(rejection);
  res.status(rejection.status);
  if (streaming && rejection.status === 200) {
    res.type('text/event-stream').send(`event: message\ndata: ${JSON.stringify(body)}\n\n`);
    return;
  }
  res.json(body);
}

function responseMode(accept: string | undefined): 'json' | 'sse' {
  if (!accept) return 'json';
  const types = (accept ?? '').split(',').map((part) => part.split(';')[0].trim().toLowerCase());
  if (types.includes('application/json') || types.includes('*/*') || types.includes('application/*')) return 'json';
  if (types.includes('text/event-stream')) return 'sse';
  throw new ProblemException({
    status: 406,
    code: 'not_acceptable',
    detail: 'send Accept: application/json, text/event-stream',
  });
}
