/**
 * Where a call's time goes, stage by stage, from the apps' own latency histograms (their /metrics): the mean of
 * each stage between two readings. Means, not percentiles: the buckets are too coarse for a p95 of a few ms, and a
 * stage whose mean grows under load is where the wait is.
 */

/** Sum and count of one histogram series (a metric name and one label set). */
interface Series {
  sum: number;
  count: number;
}

/** Every histogram series of one app's /metrics, keyed by `name{labels}`, plus its gauges. */
export interface Reading {
  readonly series: Map<string, Series>;
  readonly gauges: Map<string, number>;
}

const SAMPLE = /^([a-zA-Z_:][\w:]*?)(_sum|_count)?(\{[^}]*\})?\s+(\S+)$/;

/** Reads an app's /metrics (Prometheus text): histogram sums and counts, and the other plain samples. */
export async function readMetrics(appUrl: string): Promise<Reading> {
  const text = await (await fetch(`${appUrl}/metrics`)).text();
  const series = new Map<string, Series>();
  const gauges = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (!match || line.startsWith('#')) continue;
    const [, name, part, labels = '', value] = match as unknown as [string, string, string | undefined, string | undefined, string];
    if (name.endsWith('_bucket')) continue;
    if (!part) {
      gauges.set(`${name}${labels}`, Number(value));
      continue;
    }
    const key = `${name}${labels}`;
    const entry = series.get(key) ?? { sum: 0, count: 0 };
    entry[part === '_sum' ? 'sum' : 'count'] = Number(value);
    series.set(key, entry);
  }
  return { series, gauges };
}

/**
 * The mean, in the metric's own unit, of the series of `metric` whose labels contain every one of `labels`
 * (`key="value"`), over the observations made between two readings, and how many there were.
 */
export function meanBetween(before: Reading, after: Reading, metric: string, labels: readonly string[]): { mean: number; calls: number } {
  let sum = 0;
  let count = 0;
  for (const [key, value] of after.series) {
    if ((key !== metric && !key.startsWith(`${metric}{`)) || !labels.every((label) => key.includes(label))) continue;
    const earlier = before.series.get(key) ?? { sum: 0, count: 0 };
    sum += value.sum - earlier.sum;
    count += value.count - earlier.count;
  }
  return { mean: count > 0 ? sum / count : Number.NaN, calls: count };
}
