import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { InvocationModule } from '../invocation/invocation.module';
import { MediaModule } from '../media/media.module';
import { LlmsTxtController } from './llms-txt.controller';
import { McpController } from './mcp.controller';
import { McpDispatcher } from './mcp-dispatcher';
import { McpServerFactory } from './mcp-server.factory';
import { McpToolCalls } from './mcp-tool-calls';
import { McpViews } from './mcp-views';
import { MediaContent } from './media-content';
import { OriginGuard } from './origin.guard';

@Module({
  imports: [AuthModule, InvocationModule, MediaModule],
  controllers: [McpController, LlmsTxtController],
  providers: [McpDispatcher, McpServerFactory, McpToolCalls, McpViews, MediaContent, OriginGuard],
})
export class McpModule {}
