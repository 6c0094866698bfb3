import { randomUUID } from 'node:crypto';
import { Test } from '@nestjs/testing';
import type { INestApplication } from '@nestjs/common';
import { createLogger, httpRequestLogging } from '@adintel/observability';
import { serviceClientToken } from '@adintel/transport';
import { AppModule } from '../../src/app/app.module';
import { appConfigSchema, resolveConfig, type AppConfig } from '../../src/config';
import type { FakeService } from './fake-services';
import { tracked } from './leftovers';

export const TEST_BASE_URL = 'http://localhost:3000';
/** The gateway's Redis db in tests (3: each app's tests keep their own db); keys get a per-run prefix. */
export const TEST_REDIS_URL = 'redis://127.0.0.1:6379/3';

export interface Gateway {
  readonly url: string;
  readonly config: AppConfig;
  close(): Promise<void>;
}

/** The whole gateway over real HTTP, with query-api and metering replaced at the transport client. */
export async function startGateway(options: {
  jwksUrl: string;
  query: FakeService;
  metering: FakeService;
  env?: Record<string, string>;
}): Promise<Gateway> {
  const config = resolveConfig(
    appConfigSchema.parse({
      PUBLIC_BASE_URL: TEST_BASE_URL,
      REDIS_URL: TEST_REDIS_URL,
      GATEWAY_KEY_PREFIX: `gw-test-${randomUUID()}:`,
      AUTH_JWKS_URL: options.jwksUrl,
      JWKS_COOLDOWN_SECONDS: '0',
      ...options.env,
    }),
  );
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.register(config)] })
    .overrideProvider(serviceClientToken('query'))
    .useValue(options.query)
    .overrideProvider(serviceClientToken('metering'))
    .useValue(options.metering)
    .compile();
  const app: INestApplication = moduleRef.createNestApplication({ logger: false });
  const close = tracked(() => app.close());
  app.use(httpRequestLogging(createLogger('mcp-gateway', 'silent')));
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { url, config, close };
}
