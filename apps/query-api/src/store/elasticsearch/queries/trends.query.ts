import type { estypes } from '@elastic/elasticsearch';
import type { CreativeFormat, Platform, TrendDimension } from '@adintel/contracts';
import type { DateRange, TrendFilter, TrendQuery, TrendResult, TrendRowData } from '../../ad-store.port';
import type { AdDocument } from '../ad-document';
import { activeIn, trendFilterQuery } from './ad-filter.query';
import { TOLERATE_NO_INDEX } from './ads.query';
import {
  type Answer,
  type CompositeAgg,
  type CompositeBucket,
  type FilterAgg,
  type HistogramAgg,
  keysOf,
  type TermsAgg,
  type TermsBucket,
  termsOrder,
  topSources,
  type TopHitsAgg,
  totalOf,
  type ValueAgg,
} from './responses';

type Aggs = Record<string, estypes.AggregationsAggregationContainer>;

/**
 * Distinct counts: HyperLogLog, exact in practice below this many distinct values per bucket, within a few percent
 * above. Its memory is about precision_threshold x 8 bytes per bucket (Elastic's cardinality documentation): 40,000
 * took 320 KB per bucket, hundreds of MB per shard under a terms of 500+ shard buckets (the request circuit breaker's
 * range); 3,000 keeps a trend request under the rule test's budget (test/store/elasticsearch/spec/es-rules.ts).
 */
export const DISTINCT = { precision_threshold: 3_000 } as const;
const distinct = (field: string): estypes.AggregationsAggregationContainer => ({ cardinality: { field, ...DISTINCT } });
const top = (field: string, size: number): estypes.AggregationsAggregationContainer => ({
  terms: { field, size, order: termsOrder },
});

export type RankedDimension = 'geo' | 'advertisers/cards' | 'webmasters' | 'apps';

/** The ranked dimensions: which ad field is the row key, and what each row carries. */
const RANKED_DIMENSIONS: Record<RankedDimension, { field: string; aggs: Aggs }> = {
  geo: {
    field: 'countries',
    aggs: { advertisers: distinct('advertiser_id'), top_categories: top('categories', 3) },
  },
  'advertisers/cards': {
    field: 'advertiser_id',
    aggs: {
      platforms: top('platform_name', 10),
      active: { filter: { term: { status_today: 'active' } } },
      creatives: distinct('creative_id'),
      top_countries: top('countries', 3),
      samples: {
        top_hits: {
          size: 3,
          sort: [{ first_seen_date: { order: 'desc' } }, { id: { order: 'desc' } }],
          _source: ['id', 'advertiser_name'],
        },
      },
    },
  },
  webmasters: {
    field: 'webmaster_id',
    aggs: {
      dominant: top('countries', 1),
      advertisers: distinct('advertiser_id'),
      named: { top_hits: { size: 1, sort: [{ id: { order: 'asc' } }], _source: ['webmaster_name'] } },
    },
  },
  apps: {
    field: 'app_id',
    aggs: {
      advertisers: distinct('advertiser_id'),
      named: { top_hits: { size: 1, sort: [{ id: { order: 'asc' } }], _source: ['app'] } },
    },
  },
};

export const isRankedDimension = (d: TrendDimension): d is RankedDimension => d in RANKED_DIMENSIONS;

/** Current window: the top `limit` keys by ads desc, key asc, with their detail, and the window total. */
export function rankedTrendRequest(index: string, query: TrendQuery & { dimension: RankedDimension }): estypes.SearchRequest {
  const { field, aggs } = RANKED_DIMENSIONS[query.dimension];
  return {
    index,
    ...TOLERATE_NO_INDEX,
    query: trendFilterQuery(query.filter, query.window),
    size: 0,
    track_total_hits: true,
    aggs: {
      rows: { terms: { field, size: query.limit, shard_size: Math.max(query.limit * 10, 500), order: termsOrder }, aggs },
    },
  };
}

/** Previous window: the same keys' counts, so `change` compares like with like. */
export function previousCountsRequest(
  index: string,
  dimension: RankedDimension,
  filter: TrendFilter,
  previous: DateRange,
  keys: string[],
): estypes.SearchRequest {
  return {
    index,
    ...TOLERATE_NO_INDEX,
    query: trendFilterQuery(filter, previous),
    size: 0,
    track_total_hits: false,
    aggs: { rows: { terms: { field: RANKED_DIMENSIONS[dimension].field, include: keys, size: Math.max(keys.length, 1) } } },
  };
}

export interface RowsAggs<B = TermsBucket> {
  rows: TermsAgg<B>;
}

export function previousCountsFrom(response: Answer<RowsAggs>): Map<string, number> {
  const rows = response.aggregations?.rows;
  return new Map((rows?.buckets ?? []).map((b) => [String(b.key), b.doc_count]));
}

export interface RankedBucket extends TermsBucket {
  advertisers?: ValueAgg;
  top_categories?: TermsAgg;
  platforms?: TermsAgg;
  active?: FilterAgg;
  creatives?: ValueAgg;
  top_countries?: TermsAgg;
  samples?: TopHitsAgg<Partial<AdDocument>>;
  dominant?: TermsAgg;
  named?: TopHitsAgg<Partial<AdDocument>>;
}

export function rankedKeysFrom(response: Answer<RowsAggs>): string[] {
  return keysOf(response.aggregations?.rows);
}

export function rankedTrendFrom(
  dimension: RankedDimension,
  response: Answer<RowsAggs<RankedBucket>>,
  previous: Map<string, number>,
): TrendResult {
  const buckets = response.aggregations?.rows?.buckets ?? [];
  const rows = buckets.map((bucket): TrendRowData => {
    const key = String(bucket.key);
    const base = { key, ads: bucket.doc_count, previousAds: previous.get(key) ?? 0 };
    const advertisers = Math.round(bucket.advertisers?.value ?? 0);
    switch (dimension) {
      case 'geo':
        return { ...base, label: key, detail: { advertisers, top_categories: keysOf(bucket.top_categories) } };
      case 'advertisers/cards': {
        const samples = topSources(bucket.samples);
        const name = samples[0]?.advertiser_name ?? key;
        return {
          ...base,
          label: name,
          detail: {
            name,
            platforms: (keysOf(bucket.platforms) as Platform[]).sort(),
            active_ads: bucket.active?.doc_count ?? 0,
            creatives: Math.round(bucket.creatives?.value ?? 0),
            top_countries: keysOf(bucket.top_countries),
            sample_ad_ids: samples.flatMap((s) => (s.id ? [s.id] : [])),
          },
        };
      }
      case 'webmasters':
        return {
          ...base,
          label: topSources(bucket.named)[0]?.webmaster_name ?? key,
          detail: { dominant_country: keysOf(bucket.dominant)[0] ?? null, advertisers },
        };
      case 'apps': {
        const app = topSources(bucket.named)[0]?.app;
        return {
          ...base,
          label: app?.name ?? key,
          detail: { store: app?.store ?? 'google_play', bundle_id: app?.bundle_id ?? '', advertisers },
        };
      }
    }
  });
  return { totalAds: totalOf(response), rows };
}

/** Every day of a range, ascending (YYYY-MM-DD, UTC). */
export function daysOf(range: DateRange): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${range.from}T00:00:00Z`); t <= Date.parse(`${range.to}T00:00:00Z`); t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

/**
 * Per-day new and active ads over a range. `active_period` is a date_range field: a date_histogram over
 * it counts each ad on every day it was active; hard_bounds cut the days outside the range.
 */
export function dailyActivityAggs(range: DateRange): Aggs {
  const bounds = { min: range.from, max: range.to };
  const histogram = (field: string): estypes.AggregationsAggregationContainer => ({
    date_histogram: {
      field,
      calendar_interval: 'day',
      format: 'yyyy-MM-dd',
      min_doc_count: 0,
      extended_bounds: bounds,
      hard_bounds: bounds,
    },
  });
  return {
    active_days: histogram('active_period'),
    new_in_range: {
      filter: { range: { first_seen_date: { gte: range.from, lte: range.to } } },
      aggs: { days: histogram('first_seen_date') },
    },
  };
}

export interface DailyCounts {
  active: Map<string, number>;
  created: Map<string, number>;
}

/** The aggregations of dailyActivityAggs, as answered. */
export interface DailyAggs {
  active_days?: HistogramAgg;
  new_in_range?: FilterAgg & { days?: HistogramAgg };
}

export function dailyCountsFrom(aggs: DailyAggs | undefined): DailyCounts {
  const byDay = (agg: HistogramAgg | undefined) =>
    new Map((agg?.buckets ?? []).map((b) => [b.key_as_string ?? String(b.key), b.doc_count]));
  return { active: byDay(aggs?.active_days), created: byDay(aggs?.new_in_range?.days) };
}

/** Timeline: both windows in one request; the window total comes from a filter agg. */
export function timelineRequest(index: string, query: TrendQuery): estypes.SearchRequest {
  const span = { from: query.previous.from, to: query.window.to };
  return {
    index,
    ...TOLERATE_NO_INDEX,
    query: trendFilterQuery(query.filter, span),
    size: 0,
    track_total_hits: false,
    aggs: { ...dailyActivityAggs(span), in_window: { filter: activeIn(query.window) } },
  };
}

/** One row per day of the window; previousAds = active ads on the same day of the previous window. */
export type TimelineAggs = DailyAggs & { in_window: FilterAgg };

export function timelineFrom(query: TrendQuery, response: Answer<TimelineAggs>): TrendResult {
  const { active, created } = dailyCountsFrom(response.aggregations);
  const previousDays = daysOf(query.previous);
  const rows = daysOf(query.window).map((date, i): TrendRowData => {
    const ads = active.get(date) ?? 0;
    const previousDay = previousDays[i];
    return {
      key: date,
      label: date,
      ads,
      previousAds: previousDay ? (active.get(previousDay) ?? 0) : 0,
      detail: { date, new_ads: created.get(date) ?? 0, active_ads: ads },
    };
  });
  const inWindow = response.aggregations?.in_window;
  return { totalAds: inWindow?.doc_count ?? 0, rows };
}

const SCALING_PAGE_SIZE = 5_000;

/**
 * Scaling creatives rank by growth (window ads - previous ads), which no terms ordering can express
 * exactly: a composite aggregation walks every creative active in either window, page by page, with
 * both counts; the adapter keeps the top rows.
 */
export function scalingPageRequest(
  index: string,
  query: TrendQuery,
  after?: estypes.AggregationsCompositeAggregateKey,
): estypes.SearchRequest {
  return {
    index,
    ...TOLERATE_NO_INDEX,
    query: trendFilterQuery(query.filter, { from: query.previous.from, to: query.window.to }),
    size: 0,
    track_total_hits: false,
    aggs: {
      creatives: {
        composite: {
          size: SCALING_PAGE_SIZE,
          sources: [{ creative: { terms: { field: 'creative_id' } } }],
          ...(after ? { after } : {}),
        },
        aggs: { current: { filter: activeIn(query.window) }, previous: { filter: activeIn(query.previous) } },
      },
      ...(after ? {} : { in_window: { filter: activeIn(query.window) } }),
    },
  };
}

export interface GrowthCandidate {
  key: string;
  ads: number;
  previousAds: number;
}

export interface ScalingPageAggs {
  creatives: CompositeAgg<ScalingBucket>;
  in_window: FilterAgg;
}

export function scalingPageFrom(response: Answer<ScalingPageAggs>): {
  candidates: GrowthCandidate[];
  after?: estypes.AggregationsCompositeAggregateKey;
  totalAds?: number;
} {
  const aggs = response.aggregations;
  const buckets = aggs?.creatives?.buckets ?? [];
  return {
    candidates: buckets
      .map((b) => ({ key: b.key.creative, ads: b.current.doc_count, previousAds: b.previous.doc_count }))
      .filter((c) => c.ads > c.previousAds),
    after: buckets.length ? aggs?.creatives?.after_key : undefined,
    totalAds: aggs?.in_window?.doc_count,
  };
}

/** Port order of scaling creatives: growth desc, ads desc, key asc. */
export function byGrowth(a: GrowthCandidate, b: GrowthCandidate): number {
  return (
    b.ads - b.previousAds - (a.ads - a.previousAds) || b.ads - a.ads || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
  );
}

/** Detail of the chosen creatives over the window: their format and title, and their main advertiser. */
export function scalingDetailRequest(index: string, query: TrendQuery, keys: string[]): estypes.SearchRequest {
  return {
    index,
    ...TOLERATE_NO_INDEX,
    query: { bool: { filter: [trendFilterQuery(query.filter, query.window), { terms: { creative_id: keys } }] } },
    size: 0,
    track_total_hits: false,
    aggs: {
      rows: {
        terms: { field: 'creative_id', size: Math.max(keys.length, 1) },
        aggs: {
          lead: top('advertiser_id', 1),
          first: {
            top_hits: { size: 1, sort: [{ id: { order: 'asc' } }], _source: ['creative_format', 'creative_title'] },
          },
        },
      },
    },
  };
}

type ScalingBucket = CompositeBucket<{ creative: string }> & { current: FilterAgg; previous: FilterAgg };
export type DetailBucket = TermsBucket & { lead?: TermsAgg; first?: TopHitsAgg<Partial<AdDocument>> };

export function scalingTrendFrom(chosen: GrowthCandidate[], totalAds: number, detail: Answer<RowsAggs<DetailBucket>>): TrendResult {
  const buckets = detail.aggregations?.rows?.buckets ?? [];
  const byKey = new Map(buckets.map((b) => [String(b.key), b]));
  const rows = chosen.map((c): TrendRowData => {
    const bucket = byKey.get(c.key);
    const first = topSources(bucket?.first)[0];
    return {
      key: c.key,
      label: first?.creative_title ?? c.key,
      ads: c.ads,
      previousAds: c.previousAds,
      detail: {
        creative_format: (first?.creative_format ?? 'image') as CreativeFormat,
        advertiser_id: keysOf(bucket?.lead)[0] ?? '',
      },
    };
  });
  return { totalAds, rows };
}

