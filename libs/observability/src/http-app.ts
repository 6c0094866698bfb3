import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createLogger, NestPinoLogger, type Logger } from './logger';
import { httpRequestLogging } from './http-request-logging';
import { AppMetrics } from './metrics/app-metrics';

export interface HttpAppOptions {
  readonly service: string;
  readonly logLevel: string;
  readonly shutdownTimeoutMs: number;
}

/**
 * Creates a Nest HTTP app with JSON logs, request ids, request metrics (the module must import MetricsModule)
 * and graceful shutdown:
 * on SIGTERM/SIGINT Nest closes (servers, transports, modules); a stuck close is cut off after the timeout.
 */
export async function createHttpApp(
  module: unknown,
  options: HttpAppOptions,
): Promise<{ app: NestExpressApplication; logger: Logger }> {
  const logger = createLogger(options.service, options.logLevel);
  const app = await NestFactory.create<NestExpressApplication>(module as never, {
    logger: new NestPinoLogger(logger),
    bodyParser: true,
  });
  app.disable('x-powered-by');
  app.use(httpRequestLogging(logger));
  // Mounted ahead of everything an app adds (the OAuth provider too), so every request is counted.
  app.use(app.get(AppMetrics).httpMiddleware());
  app.enableShutdownHooks();
  armShutdownDeadline(options.shutdownTimeoutMs, logger);
  return { app, logger };
}

function armShutdownDeadline(timeoutMs: number, logger: Logger) {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down');
      setTimeout(() => {
        logger.error({ timeout_ms: timeoutMs }, 'shutdown took too long; exiting');
        process.exit(1);
      }, timeoutMs).unref();
    });
  }
}

/** Binds to `host` (config HOST: loopback unless the deployment opens it). */
export async function listen(app: INestApplication, port: number, logger: Logger, host: string) {
  await app.listen(port, host);
  logger.info({ port, host }, 'listening');
}
