import type { Server } from 'node:http';
import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createLogger, NestPinoLogger, type Logger } from './logger';
import { httpRequestLogging } from './http-request-logging';
import { AppMetrics } from './metrics/app-metrics';
import { GracefulShutdown } from './graceful-shutdown';

/**
 * How long an idle keep-alive connection stays open. Node's default (5 s) is shorter than the idle timeout of the
 * proxies in front of the apps (ingress-nginx keeps upstream connections 60 s): a proxy, or an agent's client, that
 * sends on a connection the app is closing at that moment gets a reset (seen as ECONNRESET in a test run), so the app
 * keeps connections longer than they do. A shutdown still closes idle connections at once (GracefulShutdown).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

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
  const server = app.getHttpServer() as Server;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // Counted from a request's first byte, also on a reused connection: kept above the idle time, as Node's docs advise.
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
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
