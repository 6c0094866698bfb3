import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { NodeStreamableHTTPServerTransport, toNodeHandler, type NodeIncomingMessageLike, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import { classifyInboundRequest, createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import { APP_CONFIG } from '@adintel/config';
import { currentRequestId } from '@adintel/observability';
import type { AppConfig } from '../config';
import type { Caller } from '../auth/caller';
import { ProblemException } from '../problems/problem';
import { authInfoFor, McpServerFactory } from './mcp-server.factory';
import { carryIdempotencyKey } from './idempotency-meta';
import { checkEnvelope, jsonRpcError, type EnvelopeRejection, type ProtocolEra } from './json-rpc-envelope';
import { fastCallAnswer, fastCallError, fastToolCall, type Classification, type FastToolCall } from './mcp-fast-call';
import { McpToolCalls } from './mcp-tool-calls';

type ResponseMode = 'json' | 'sse';

/**
 * MCP Streamable HTTP on both protocol eras, stateless, one endpoint. The bearer and Origin guards run first on
 * every request; then the SDK's own classification (`classifyInboundRequest`, what `isLegacyRequest` and
 * `createMcpHandler` route with) picks the era:
 * - 2026-07-28 (a `_meta` envelope claim): the SDK's `createMcpHandler`, which owns `server/discover`, the standard
 *   header checks, `resultType`, cache hints and the unsupported-version answer;
 * - 2025-era (no claim, as every 2025-11-25 client sends): a per-request server on the SDK's stateless transport
 *   with JSON responses, as before. createMcpHandler's own legacy fallback answers 2025-era calls only as SSE,
 *   which the 2025 clients read but plain JSON-RPC callers (the service contract's `tools/call`) cannot.
 * Both build their server with the same factory, so tools, views and answers are the same on both eras.
 * A plain `tools/call` answered in JSON skips both: the gateway answers it itself, exactly as the SDK would
 * (mcp-fast-call.ts; MCP_FAST_PATH=false sends it to the SDK too).
 */
@Injectable()
export class McpDispatcher {
  private readonly logger = new Logger('McpDispatcher');
  private readonly modern: Record<ResponseMode, NodeMcpRequestHandler>;

  constructor(
    private readonly servers: McpServerFactory,
    private readonly toolCalls: McpToolCalls,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const onerror = (error: Error) => this.logger.warn(`MCP request failed in the SDK: ${error.message}`);
    // 'auto' answers in JSON unless a handler sends a notification first, which ours never do.
    const modern = (responseMode: 'auto' | 'sse') =>
      toNodeHandler(createMcpHandler(servers.forRequest, { legacy: 'reject', responseMode, onerror }), { onerror });
    this.modern = { json: modern('auto'), sse: modern('sse') };
  }

  /** Answers one POST /mcp of an authenticated caller (the guards have run). */
  async dispatch(req: Request, res: Response, caller: Caller): Promise<void> {
    const mode = responseMode(req.headers.accept);
    const requestId = currentRequestId() ?? 'unknown';
    const classification = classify(req);
    // A POST without a JSON body is the legacy side's to answer, as isLegacyRequest has it.
    const era: ProtocolEra = req.body === undefined || classification.kind === 'legacy' ? 'legacy' : 'modern';
    // Another Content-Type is left to the SDK, which answers 415.
    if (req.is('application/json')) {
      const verdict = checkEnvelope(req.body, era);
      const rejection = verdict.ok ? carryIdempotencyKey(req.body, req.headers['idempotency-key']) : verdict.rejection;
      if (rejection) {
        sendRejection(res, rejection, mode);
        return;
      }
      const call = mode === 'json' && this.config.MCP_FAST_PATH ? fastToolCall(req, classification) : undefined;
      if (call) {
        await this.answerToolCall(res, call, caller, requestId);
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

  /** The JSON answer to a plain tools/call, written as the SDK writes it (status 200 for a result and an error alike). */
  private async answerToolCall(res: Response, call: FastToolCall, caller: Caller, requestId: string): Promise<void> {
    let body: string;
    try {
      body = fastCallAnswer(call, await this.toolCalls.call(call.params, caller, requestId, call.id));
    } catch (error) {
      body = fastCallError(call, error);
    }
    res.status(200).setHeader('Content-Type', 'application/json');
    res.end(body);
  }

  private async serveLegacy(req: Request, res: Response, caller: Caller, requestId: string, mode: ResponseMode): Promise<void> {
    const server = this.servers.create(caller, requestId);
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: mode === 'json' });
    // Closing the server closes its transport (closing both would end the connection twice).
    res.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }
}

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
  const types = (accept ?? '').split(',').map((part) => {
    const [type = ''] = part.split(';');
    return type.trim().toLowerCase();
  });
  if (types.includes('application/json') || types.includes('*/*') || types.includes('application/*')) return 'json';
  if (types.includes('text/event-stream')) return 'sse';
  throw new ProblemException({
    status: 406,
    code: 'not_acceptable',
    detail: 'send Accept: application/json, text/event-stream',
  });
}

/**
 * The SDK's classification of a request from what it reads: the method, the three standard headers (a repeated
 * header joined as `Headers.get` joins it) and the body Express parsed. Called directly rather than through
 * `isLegacyRequest`, which would need a web `Request` built from every header first.
 */
function classify(req: Request): Classification {
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  return classifyInboundRequest({
    httpMethod: req.method,
    protocolVersionHeader: header('mcp-protocol-version'),
    mcpMethodHeader: header('mcp-method'),
    mcpNameHeader: header('mcp-name'),
    ...(req.body !== undefined && { body: req.body }),
  });
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
