import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ConfigModule } from '@adintel/config';
import { MetricsModule } from '@adintel/observability';
import type { AppConfig } from '../config';
import { AuthModule } from '../auth/auth.module';
import { readinessModule } from '../health/readiness.module';
import { McpModule } from '../mcp/mcp.module';
import { MediaModule } from '../media/media.module';
import { OpenApiModule } from '../openapi/openapi.module';
import { ProblemFilter } from '../problems/problem.filter';
import { RestModule } from '../rest/rest.module';

@Module({})
export class AppModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MetricsModule, // first: /metrics ahead of any catch-all route
        ConfigModule.forRoot(config),
        readinessModule(),
        AuthModule,
        McpModule,
        // Before RestModule: their fixed routes must be registered ahead of the catch-all of the tool twins.
        OpenApiModule,
        MediaModule,
        RestModule,
      ],
      providers: [{ provide: APP_FILTER, useFactory: () => new ProblemFilter(config.PUBLIC_BASE_URL) }],
    };
  }
}
