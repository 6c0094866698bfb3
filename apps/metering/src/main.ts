import 'reflect-metadata';
import { loadConfigOrExit } from '@adintel/config';
import { createHttpApp, listen } from '@adintel/observability';
import { serveTransport } from '@adintel/transport';
import { AppModule } from './app/app.module';
import { appConfigSchema } from './config';

async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit(appConfigSchema, 'metering');
  const { app, logger, shutdown } = await createHttpApp(AppModule.register(config), {
    service: 'metering',
    logLevel: config.LOG_LEVEL,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
  await serveTransport(app, 'metering', config, shutdown);
  await listen(app, config.PORT, logger, config.HOST);
}

void bootstrap();
