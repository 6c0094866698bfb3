import 'reflect-metadata';
import { loadConfigOrExit } from '@adintel/config';
import { createHttpApp, listen } from '@adintel/observability';
import { AppModule } from './app/app.module';
import { appConfigSchema } from './config';
import { mountAuthorizationServer } from './app/oidc/mount-authorization-server';

async function bootstrap() {
  const config = loadConfigOrExit(appConfigSchema, 'auth-server');
  const { app, logger } = await createHttpApp(AppModule.register(config), {
    service: 'auth-server',
    logLevel: config.LOG_LEVEL,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
  mountAuthorizationServer(app); // ahead of Nest's body parsers: oidc-provider reads its own bodies
  await listen(app, config.PORT, logger, config.HOST);
}

void bootstrap();
