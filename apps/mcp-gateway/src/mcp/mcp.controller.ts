import { Controller, Delete, Get, Inject, Logger, Options, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { NodeStreamableHTTPServerTransport, toNodeHandler, type NodeIncomingMessageLike, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest, type AuthInfo } from '@modelcontextprotocol/server';
import { APP_CONFIG } from '@adintel/config';
import { currentRequestId } from '@adintel/observability';
import type { AppConfig } from '../config';
import { BearerAuthGuard } from '../auth/bearer-auth.guard';
import { CurrentCaller, type Caller } from '../auth/caller';
import { ProblemException } from '../problems/problem';
import { authInfoFor, McpServerFactory } from './mcp-server.factory';
import { allowOrigin, answerOptions } from './cors';
import { carryIdempotencyKey } from './idempotency-meta';
import { checkEnvelope, jsonRpcError, type EnvelopeRejection, type ProtocolEra } from './json-rpc-envelope';
import { OriginGuard } from './origin.guard';

type ResponseMode = 'json' | 'sse';

/**
 * MCP Streamable HTTP on both protocol eras, stateless, one endpoint. The bearer and Origin guards run first on
 * every request; then the SDK's own classification (`isLegacyRequest`) picks the era:
 * - 2026-07-28 (a `_meta` envelope claim): the SDK's `createMcpHandler`, which owns `server/discover`, the standard
 *   header checks, `resultType`, cache hints and the unsupported-version answer;
 * - 2025-era (no claim, as every 2025-11-25 client sends): a per-request server on the SDK's stateless transport
 *   with JSON responses, as before. createMcpHandler's own legacy fallback answers 2025-era calls only as SSE,
 *   which the 2025 clients read but plain JSON-RPC callers (the service contract's `tools/call`) cannot.
 * Both build their server with the same factory, so tools, views and answers are the same on both eras.
 */
@Controller('mcp')
export class McpController {
  private readonly logger = new Logger('McpController');
  private readonly modern: Record<ResponseMode, NodeMcpRequestHandler>;

  constructor(
    private readonly servers: McpServerFactory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const onerror = (error: Error) => this.logger.warn(`MCP request failed in the SDK: ${error.message}`);
    // 'auto' answers in JSON unless a handler sends a notification first, which ours never do.
    const modern = (responseMode: 'auto' | 'sse') =>
      toNodeHandler(createMcpHandler(servers.forRequest, { legacy: 'reject', responseMode, onerror }), { onerror });
    this.modern = { json: modern('auto'), sse: modern('sse') };
  }

  @Post()
  @UseGuards(OriginGuard, BearerAuthGuard)
  async post(@Req() req: Request, @Res() res: Response, @CurrentCaller() caller: Caller): Promise<void> {
    allowOrigin(req, res, this.config.MCP_ALLOWED_ORIGINS);
    const mode = responseMode(req.headers.accept);
    const requestId = currentRequestId() ?? 'unknown';
    const era: ProtocolEra = (await isLegacyRequest(headersOf(req), req.body)) ? 'legacy' : 'modern';
    // Another Content-Type is left to the SDK, which answers 415.
    if (req.is('application/json')) {
      const verdict = checkEnvelope(req.body, era);
      const rejection = verdict.ok ? carryIdempotencyKey(req.body, req.headers['idempotency-key']) : verdict.rejection;
      if (rejection) {
        sendRejection(res, rejection, mode);
        return;
      }
    }
    // The SDK insists on both media types; a client that accepts one of them is served in that one.
    req.headers.accept = 'application/json, text/event-stream';
    if (era === 'legacy') {
      await this.serveLegacy(req, res, caller, requestId, mode);
      return;
    }
    await this.modern[mode](sdkRequest(req, authInfoFor(caller, requestId)), res, req.body);
  }

  private async serveLegacy(req: Request, res: Response, caller: Caller, requestId: string, mode: ResponseMode): Promise<void> {
    const server = this.servers.create(caller, requestId);
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: mode === 'json' });
    // Closing the server closes its transport (closing both would end the connection twice).
    res.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
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
function sendRejection(res: Response, rejection: EnvelopeRejection, mode: ResponseMode): void {
  const body = jsonRpcError(rejection);
  res.status(rejection.status);
  if (mode === 'sse' && rejection.status === 200) {
    res.type('text/event-stream').send(`event: message\ndata: ${JSON.stringify(body)}\n\n`);
    return;
  }
  res.json(body);
}

function responseMode(accept: string | undefined): ResponseMode {
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

/**
 * What the SDK's classification reads: the method and the headers (the body is the one Express parsed). The URL
 * plays no part, so a fixed one keeps a caller's path and query out of the `Request` constructor.
 */
function headersOf(req: Request): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new globalThis.Request('http://gateway/mcp', { method: req.method, headers });
}

/**
 * The request as the SDK's Node adapter reads it (the body it is given already parsed). The adapter builds a URL
 * from Host and the path, which a malformed Host would turn into a 500; neither plays a part in MCP (the Origin
 * is checked by OriginGuard), so both are fixed here.
 */
function sdkRequest(req: Request, auth: AuthInfo): NodeIncomingMessageLike {
  return {
    method: req.method,
    url: '/mcp',
    headers: { ...req.headers, host: 'gateway' },
    auth,
    [Symbol.asyncIterator]: () => req[Symbol.asyncIterator](),
  };
}
