import { Module } from '@nestjs/common';
import { TransportClientModule } from '@adintel/transport';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { ToolInvoker } from './tool-invoker.service';

@Module({
  imports: [TransportClientModule.register(['query', 'metering']), RateLimitModule],
  providers: [ToolInvoker],
  exports: [ToolInvoker, TransportClientModule],
})
export class InvocationModule {}
