import { Controller, Delete, Get, Inject, Options, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../config';
import { BearerAuthGuard } from '../auth/bearer-auth.guard';
import { CurrentCaller, type Caller } from '../auth/caller';
import { ProblemException } from '../problems/problem';
import { allowOrigin, answerOptions } from './cors';
import { McpDispatcher } from './mcp-dispatcher';
import { OriginGuard } from './origin.guard';

/**
 * MCP Streamable HTTP, stateless, one endpoint: receives a request (after the Origin and bearer guards) and hands it
 * to McpDispatcher, which picks the protocol era and the fast path or the SDK.
 */
@Controller('mcp')
export class McpController {
  constructor(
    private readonly dispatcher: McpDispatcher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @UseGuards(OriginGuard, BearerAuthGuard)
  async post(@Req() req: Request, @Res() res: Response, @CurrentCaller() caller: Caller): Promise<void> {
    allowOrigin(req, res, this.config.MCP_ALLOWED_ORIGINS);
    await this.dispatcher.dispatch(req, res, caller);
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
