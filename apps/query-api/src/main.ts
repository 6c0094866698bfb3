import 'reflect-metadata';
import { loadConfigOrExit } from '@adintel/config';
import { createHttpApp, listen } from '@adintel/observability';
import { serveTransport } from '@adintel/transport';
import { AppModule } from './app/app.module';
import { appConfigSchema } from './config';
import { LiveConsumer } from './live/live-consumer';

async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit(appConfigSchema, 'query-api');
  const { app, logger, shutdown } = await createHttpApp(AppModule.register(config), {
    service: 'query-api',
    logLevel: config.LOG_LEVEL,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
  await serveTransport(app, 'query', config, shutdown);
  // Stopped with the transport, before the store closes: the batch in hand is applied and acked first.
  shutdown.drains(app.get(LiveConsumer));
  await listen(app, config.PORT, logger, config.HOST);
}

void bootstrap();
