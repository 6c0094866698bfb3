import { Inject, Module, type DynamicModule, type INestApplication, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import type { GracefulShutdown } from '@adintel/observability';
import type { ServiceName } from '@adintel/contracts';
import { RpcErrorFilter } from './rpc-error.filter';
import { ServiceClient } from './service-client';
import { StreamsServer } from './streams-server';
import { brokerUrl, claimIdleMs, LIVENESS_WINDOW_MS, type TransportConfig } from './transport-config';

/** Injection token of the client for one service: `@Inject(serviceClientToken('query'))`. */
export const serviceClientToken = (service: ServiceName) => `SERVICE_CLIENT:${service}`;

class ClientsShutdown implements OnApplicationShutdown {
  constructor(private readonly clients: ServiceClient[]) {}
  async onApplicationShutdown() {
    await Promise.all(this.clients.map((c) => c.close()));
  }
}

@Module({})
export class TransportClientModule {
  /** Clients for the named services, configured from the app's validated config. */
  static register(services: readonly ServiceName[]): DynamicModule {
    const providers = services.map((service) => ({
      provide: serviceClientToken(service),
      inject: [APP_CONFIG],
      useFactory: (config: TransportConfig) => new ServiceClient({ service, url: brokerUrl(config), timeoutMs: config.TRANSPORT_TIMEOUT_MS }),
    }));
    const tokens = providers.map((p) => p.provide);
    return {
      module: TransportClientModule,
      providers: [
        ...providers,
        { provide: ClientsShutdown, inject: tokens, useFactory: (...clients: ServiceClient[]) => new ClientsShutdown(clients) },
      ],
      exports: tokens,
    };
  }
}

/** The transport server of `service`, from the app's config (one place for every app). */
export function createTransportServer(service: ServiceName, config: TransportConfig): StreamsServer {
  return new StreamsServer({ service, url: brokerUrl(config), claimIdleMs: claimIdleMs(config), livenessWindowMs: LIVENESS_WINDOW_MS });
}

/**
 * Makes an HTTP app also serve its registry messages over the transport. On SIGTERM `shutdown` stops the
 * server gracefully (see StreamsServer.close) alongside the HTTP drain, before the modules close Redis.
 */
export async function serveTransport(
  app: INestApplication,
  service: ServiceName,
  config: TransportConfig,
  shutdown: Pick<GracefulShutdown, 'drains'>,
): Promise<StreamsServer> {
  const server = createTransportServer(service, config);
  shutdown.drains({ name: 'transport', stop: () => server.close() });
  const microservice = app.connectMicroservice({ strategy: server });
  microservice.useGlobalFilters(new RpcErrorFilter());
  await app.startAllMicroservices();
  return server;
}

export const InjectServiceClient = (service: ServiceName) => Inject(serviceClientToken(service));
