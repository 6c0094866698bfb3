import 'reflect-metadata';
import { loadConfigOrExit } from '@adintel/config';
import { createHttpApp, listen } from '@adintel/observability';
import { AppModule } from './app/app.module';
import { appConfigSchema, resolveConfig } from './config';

async function bootstrap(): Promise<void> {
  const config = resolveConfig(loadConfigOrExit(appConfigSchema, 'mcp-gateway'));
  const { app, logger } = await createHttpApp(AppModule.register(config), {
    service: 'mcp-gateway',
    logLevel: config.LOG_LEVEL,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
  // Behind the front door / ingress: req.ip and req.protocol come from X-Forwarded-*, from configured proxies only.
  app.set('trust proxy', config.TRUSTED_PROXIES);
  // Tool answers are `Cache-Control: no-store`: an ETag (a SHA-1 of every body) would never be used.
  app.set('etag', false);
  await listen(app, config.PORT, logger, config.HOST);
}

void bootstrap();
