import { Inject, Module, type DynamicModule, type INestApplication, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import type { ServiceName } from '@adintel/contracts';
import { ServiceClient } from './service-client';
import { createTransportServer } from './transport-server';
import { RpcErrorFilter } from './rpc-error.filter';

/** Injection token of the client for one service: `@Inject(serviceClientToken('query'))`. */
export const serviceClientToken = (service: ServiceName) => `SERVICE_CLIENT:${service}`;

/** The part of an app's config the transport needs. */
export interface TransportConfig {
  readonly REDIS_URL: string;
  readonly TRANSPORT_TIMEOUT_MS: number;
}

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
      useFactory: (config: TransportConfig) =>
        new ServiceClient({ service, redisUrl: config.REDIS_URL, timeoutMs: config.TRANSPORT_TIMEOUT_MS }),
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

/** Makes an HTTP app also serve its registry messages over the transport. */
export async function serveTransport(app: INestApplication, redisUrl: string): Promise<void> {
  const microservice = app.connectMicroservice(createTransportServer(redisUrl));
  microservice.useGlobalFilters(new RpcErrorFilter());
  await app.startAllMicroservices();
}

export const InjectServiceClient = (service: ServiceName) => Inject(serviceClientToken(service));
