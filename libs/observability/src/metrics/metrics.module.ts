import { Global, Module } from '@nestjs/common';
import {
  makeCounterProvider,
  makeHistogramProvider,
  PrometheusModule,
} from '@willsoto/nestjs-prometheus';
import { AppMetrics } from './app-metrics';
import { METRICS, type MetricDefinition } from './metric-definitions';

/** The path Prometheus scrapes. No public route leads to it (see tools/dev-stack/routes.mjs). */
export const METRICS_PATH = '/metrics';

const provider = (definition: MetricDefinition) =>
  'buckets' in definition
    ? makeHistogramProvider({ ...definition, labelNames: [...definition.labelNames], buckets: [...definition.buckets] })
    : makeCounterProvider({ ...definition, labelNames: [...definition.labelNames] });

/**
 * `/metrics` in Prometheus text format (custom metrics plus Node process metrics) and `AppMetrics`
 * everywhere. Import it first in an app module, so its route is registered ahead of any catch-all route.
 * PrometheusModule.register starts the default collectors, which may happen once per process: it runs
 * once, when this file loads.
 */
@Global()
@Module({
  imports: [PrometheusModule.register({ path: METRICS_PATH, defaultMetrics: { enabled: true } })],
  providers: [...Object.values(METRICS).map(provider), AppMetrics],
  exports: [AppMetrics],
})
export class MetricsModule {}
