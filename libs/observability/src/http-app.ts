import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createLogger, NestPinoLogger, type Logger } from './logger';
import { httpRequestLogging } from './http-request-logging';
import { AppMetrics } from './metrics/app-metrics';
import { GracefulShutdown } from './graceful-shutdown';

export interface HttpAppOptions {
  readonly service: string;
  readonly logLevel: string;
  readonly shutdownTimeoutMs: number;
}

/**
 * Creates a Nest HTTP app with JSON logs, request ids, request metrics (the module must import MetricsModule)
 * and graceful shutdown on SIGTERM/SIGINT (see GracefulShutdown). An app that also takes work from the
 * transport hands `shutdown` to `serveTransport`, which registers the transport server to be drained.
 */
export async function createHttpApp(
  module: unknown,
  options: HttpAppOptions,
): Promise<{ app: NestExpressApplication; logger: Logger; shutdown: GracefulShutdown }> {
  const logger = createLogger(options.service, options.logLevel);
  const app = await NestFactory.create<NestExpressApplication>(module as never, {
    logger: new NestPinoLogger(logger),
    bodyParser: true,
  });
  app.disable('x-powered-by');
  const shutdown = new GracefulShutdown(logger, options.shutdownTimeoutMs);
  shutdown.armSignals(app);
  app.use(shutdown.middleware);
  app.use(httpRequestLogging(logger));
  // Mounted ahead of everything an app adds (the OAuth provider too), so every request is counted.
  app.use(app.get(AppMetrics).httpMiddleware());
  return { app, logger, shutdown };
}

/** Binds to `host` (config HOST: loopback unless the deployment opens it). */
export async function listen(app: INestApplication, port: number, logger: Logger, host: string) {
  await app.listen(port, host);
  logger.info({ port, host }, 'listening');
}
