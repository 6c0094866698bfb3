import { Controller, Delete, Get, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { currentRequestId } from '@adintel/observability';
import { BearerAuthGuard } from '../auth/bearer-auth.guard';
import { CurrentCaller, type Caller } from '../auth/caller';
import { ProblemException } from '../problems/problem';
import { McpServerFactory } from './mcp-server.factory';
import { OriginGuard } from './origin.guard';

/** MCP Streamable HTTP, stateless: every POST gets its own server and transport. */
@Controller('mcp')
export class McpController {
  constructor(private readonly servers: McpServerFactory) {}

  @Post()
  @UseGuards(OriginGuard, BearerAuthGuard)
  async post(@Req() req: Request, @Res() res: Response, @CurrentCaller() caller: Caller): Promise<void> {
    const streaming = responseMode(req.headers.accept) === 'sse';
    // The SDK insists on both media types; a client that accepts one of them is served in that one.
    req.headers.accept = 'application/json, text/event-stream';
    const requestId = currentRequestId() ?? 'unknown';
    const server = this.servers.create(caller, requestId);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streaming });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
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
    headers: { Allow: 'POST' },
  });

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
