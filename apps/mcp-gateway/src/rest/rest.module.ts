import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { InvocationModule } from '../invocation/invocation.module';
import { RestController } from './rest.controller';
import { RestRouteGuard } from './rest-route.guard';

@Module({
  imports: [AuthModule, InvocationModule],
  controllers: [RestController],
  providers: [RestRouteGuard],
})
export class RestModule {}
