import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { InvocationModule } from '../invocation/invocation.module';
import { McpController } from './mcp.controller';
import { McpServerFactory } from './mcp-server.factory';
import { OriginGuard } from './origin.guard';

@Module({
  imports: [AuthModule, InvocationModule],
  controllers: [McpController],
  providers: [McpServerFactory, OriginGuard],
})
export class McpModule {}
