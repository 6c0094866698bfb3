import { Inject, Injectable } from '@nestjs/common';
import type { ReadinessCheck } from '@adintel/observability';
import { TransportReadiness } from '@adintel/transport';
import { AD_STORE, type AdStore } from '../store/ad-store.port';

/** /readyz: the store answers and the transport's broker answers. */
@Injectable()
export class Readiness {
  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    private readonly transport: TransportReadiness,
  ) {}

  checks(): ReadinessCheck[] {
    return [{ name: 'store', check: () => this.store.ping().then(() => ({ engine: this.store.engine })) }, this.transport.check()];
  }
}
