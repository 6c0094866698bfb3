import type { estypes } from '@elastic/elasticsearch';
import type {
  Advertiser,
  AdvertiserMatch,
  App,
  AppRow,
  CreativeRow,
  CountryVolume,
  Domain,
  DomainRow,
  Platform,
  Webmaster,
  WebmasterRow,
} from '@adintel/contracts';
import type { CreativeRecord } from '../../ad-store.port';
import type { AdDocument } from '../ad-document';
import type { EntityKind } from '../index-names';
import { nameSuffixes } from '../../text';
import type { EntityDocument } from './entities.query';
import { DISTINCT } from './trends.query';
import { type Answer, type CompositeAgg, type CompositeBucket, type FilterAgg, keysOf, type TermsAgg, type TermsBucket, termsOrder, topSources, type TopHitsAgg, type ValueAgg } from './responses';

/**
 * Entity rollups: a composite aggregation walks the advertisers / webmasters / creatives / registrable
 * domains / apps of the ad indices, page by page, with the sub-aggregations each record needs. The
 * offline load (the writer's finish()) walks every entity; the live path (apply) walks only the
 * entities a batch touched, with the same aggregations behind a `terms` filter on their ids, so both
 * produce the same record for the same ads (why not a transform: see the engine's README).
 */
/**
 * `search.max_buckets` (a cluster setting, 65,536 by default): the buckets of every multi-bucket aggregation of one
 * response, summed. A page holding more fails with too_many_buckets_exception, and a live batch would fail again on
 * every redelivery; so each kind's page size is bounded by the most buckets one entity can bring (pageSizeOf).
 */
export const SEARCH_MAX_BUCKETS = 65_536;
/** Entities per page when the budget allows it. */
const ROLLUP_PAGE_SIZE = 250;

type Agg = estypes.AggregationsAggregationContainer;
const top = (field: string, size: number): Agg => ({ terms: { field, size, order: termsOrder } });
const distinct = (field: string): Agg => ({ cardinality: { field, ...DISTINCT } });
const firstHit = (fields: string[], size = 1, sort: estypes.SortCombinations[] = [{ id: { order: 'asc' } }]): Agg => ({
  top_hits: { size, sort, _source: fields },
});
const named = (field: string, size: number): Agg => ({
  terms: { field, size, order: termsOrder },
  aggs: { named: firstHit(['advertiser_name']) },
});
const ALL_COUNTRIES = 300;
const active: Agg = { filter: { term: { status_today: 'active' } } };
const firstSeen: Agg = { min: { field: 'first_seen_date', format: 'yyyy-MM-dd' } };
const lastSeen: Agg = { max: { field: 'last_seen_date', format: 'yyyy-MM-dd' } };

/** The ad field that keys each entity kind. */
export const ROLLUP_KEY = {
  advertisers: 'advertiser_id',
  webmasters: 'webmaster_id',
  creatives: 'creative_id',
  domains: 'registrable_domain',
  apps: 'app_id',
} as const satisfies Record<EntityKind, keyof AdDocument>;

const ROLLUP_AGGS: Record<EntityKind, Record<string, Agg>> = {
  advertisers: {
    // The name most of its ads carry, ties to the smallest (the port's rule): terms order is count desc, key asc.
    names: top('advertiser_name', 1),
    platforms: top('platform_name', 10),
    accounts: top('platform_account', 100),
    active,
    creatives: distinct('creative_id'),
    webmasters: distinct('webmaster_id'),
    webmaster_ids: top('webmaster_id', 10_000),
    countries: top('countries', ALL_COUNTRIES),
    categories: top('categories', 100),
    landing_domains: top('registrable_domain', 20),
    first_seen: firstSeen,
    last_seen: lastSeen,
  },
  webmasters: {
    names: top('webmaster_name', 1),
    active,
    advertisers: distinct('advertiser_id'),
    countries: top('countries', ALL_COUNTRIES),
    categories: top('categories', 100),
    landing_domains: top('registrable_domain', 20),
  },
  creatives: {
    named: firstHit(['creative_title', 'creative_format', 'media']),
    advertisers: distinct('advertiser_id'),
    platforms: top('platform_name', 10),
    first_seen: firstSeen,
    last_seen: lastSeen,
    countries: top('countries', ALL_COUNTRIES),
    advertiser_ids: top('advertiser_id', 20),
    samples: firstHit(['id'], 5, [{ first_seen_date: { order: 'desc' } }, { id: { order: 'desc' } }]),
  },
  domains: {
    active,
    advertisers: distinct('advertiser_id'),
    subdomains: top('landing_domain', 50),
    countries: top('countries', ALL_COUNTRIES),
    top_advertisers: named('advertiser_id', 10),
  },
  apps: {
    named: firstHit(['app']),
    advertisers: distinct('advertiser_id'),
    advertiser_list: named('advertiser_id', 20),
    countries: top('countries', ALL_COUNTRIES),
  },
};

/** The most buckets one entity's sub-aggregations can answer with (terms sizes; top_hits, metrics, filters bring none). */
const bucketsOf = (aggs: Record<string, Agg>): number =>
  Object.values(aggs).reduce((sum, agg) => sum + (agg.terms ? (agg.terms.size ?? 10) * (1 + bucketsOf(agg.aggs ?? {})) : 0), 0);

/**
 * Entities per composite page of a kind, within the bucket budget: advertisers carry up to 10,000 webmaster ids each,
 * so their pages hold 6; the other kinds stay near 150-250.
 */
export const pageSizeOf = (kind: EntityKind): number =>
  Math.max(1, Math.min(ROLLUP_PAGE_SIZE, Math.floor(SEARCH_MAX_BUCKETS / (1 + bucketsOf(ROLLUP_AGGS[kind])))));

/** How long the rebuild's point in time lives between two pages (a page takes seconds at most). */
export const REBUILD_KEEP_ALIVE = '5m';

/**
 * The offline rebuild reads every entity kind from one point in time of the ads (R11): a composite walk has no search
 * context of its own, so without it a write between two pages (a live batch, a late load) would skew the records.
 */
export function rebuildPointInTimeRequest(index: string): estypes.OpenPointInTimeRequest {
  return { index, keep_alive: REBUILD_KEEP_ALIVE, ignore_unavailable: true };
}

/** A search on a point in time: it names no index (the point in time does) and keeps it alive for the next page. */
export function onPointInTime(request: estypes.SearchRequest, id: string): estypes.SearchRequest {
  const { index: _index, ignore_unavailable: _unavailable, allow_no_indices: _noIndices, ...rest } = request;
  return { ...rest, pit: { id, keep_alive: REBUILD_KEEP_ALIVE } };
}

/**
 * One page of rollups. With `ids`, only those entities are walked (a `terms` filter on the key field: the
 * live path recomputes the entities a batch touched); an id with no ad left gets no bucket.
 */
export function rollupPageRequest(
  index: string,
  kind: EntityKind,
  after?: estypes.AggregationsCompositeAggregateKey,
  ids?: readonly string[],
): estypes.SearchRequest {
  return {
    index,
    ignore_unavailable: true,
    allow_no_indices: true,
    size: 0,
    track_total_hits: false,
    ...(ids ? { query: { bool: { filter: [{ terms: { [ROLLUP_KEY[kind]]: [...ids] } }] } } } : {}),
    aggs: {
      entities: {
        composite: { size: pageSizeOf(kind), sources: [{ key: { terms: { field: ROLLUP_KEY[kind] } } }], ...(after ? { after } : {}) },
        aggs: ROLLUP_AGGS[kind],
      },
    },
  };
}

interface NamedBucket extends TermsBucket {
  named?: TopHitsAgg<Partial<AdDocument>>;
}
export interface RollupBucket extends CompositeBucket<{ key: string }> {
  named?: TopHitsAgg<Partial<AdDocument>>;
  names?: TermsAgg;
  samples?: TopHitsAgg<Partial<AdDocument>>;
  platforms?: TermsAgg;
  accounts?: TermsAgg;
  active?: FilterAgg;
  creatives?: ValueAgg;
  webmasters?: ValueAgg;
  advertisers?: ValueAgg;
  webmaster_ids?: TermsAgg;
  countries?: TermsAgg;
  categories?: TermsAgg;
  landing_domains?: TermsAgg;
  subdomains?: TermsAgg;
  advertiser_ids?: TermsAgg;
  top_advertisers?: TermsAgg<NamedBucket>;
  advertiser_list?: TermsAgg<NamedBucket>;
  first_seen?: ValueAgg;
  last_seen?: ValueAgg;
}

export interface RollupAggs {
  entities: CompositeAgg<RollupBucket>;
}

export function rollupPageFrom(response: Answer<RollupAggs>): {
  buckets: RollupBucket[];
  after?: estypes.AggregationsCompositeAggregateKey;
} {
  const entities = response.aggregations?.entities;
  const buckets = entities?.buckets ?? [];
  return { buckets, after: buckets.length ? entities?.after_key : undefined };
}

const count = (agg: ValueAgg | undefined) => Math.round(agg?.value ?? 0);
const dateOf = (agg: ValueAgg | undefined) => agg?.value_as_string ?? '';
const volumes = (agg: TermsAgg | undefined, total: number): CountryVolume[] =>
  (agg?.buckets ?? []).map((b) => ({ country: String(b.key), ads: b.doc_count, share: total ? b.doc_count / total : 0 }));
const namedList = (agg: TermsAgg<NamedBucket> | undefined) =>
  (agg?.buckets ?? []).map((b) => ({
    id: String(b.key),
    name: topSources(b.named)[0]?.advertiser_name ?? String(b.key),
    ads: b.doc_count,
  }));

/** Turns one composite bucket into the entity document of its kind (the port's full record). */
export function entityDocumentFrom(kind: EntityKind, bucket: RollupBucket): EntityDocument<unknown> {
  const id = bucket.key.key;
  const total = bucket.doc_count;
  const first = topSources(bucket.named)[0] ?? {};
  const countries = volumes(bucket.countries, total);
  switch (kind) {
    case 'advertisers': {
      const record: Advertiser = {
        id,
        name: keysOf(bucket.names)[0] ?? id,
        platforms: (keysOf(bucket.platforms) as Platform[]).sort(),
        ads_total: total,
        active_ads: bucket.active?.doc_count ?? 0,
        platform_accounts: keysOf(bucket.accounts)
          .map((account) => {
            const at = account.indexOf(':');
            return { platform: account.slice(0, at) as Platform, account_id: account.slice(at + 1) };
          })
          .sort((a, b) => a.platform.localeCompare(b.platform) || (a.account_id < b.account_id ? -1 : a.account_id > b.account_id ? 1 : 0)),
        creatives: count(bucket.creatives),
        webmasters: count(bucket.webmasters),
        countries,
        categories: keysOf(bucket.categories),
        landing_domains: keysOf(bucket.landing_domains),
        first_seen_date: dateOf(bucket.first_seen),
        last_seen_date: dateOf(bucket.last_seen),
      };
      return { id, name_suffixes: nameSuffixes(record.name), ads_total: total, webmaster_ids: keysOf(bucket.webmaster_ids), record };
    }
    case 'webmasters': {
      const record: Webmaster = {
        id,
        name: keysOf(bucket.names)[0] ?? id,
        ads_total: total,
        active_ads: bucket.active?.doc_count ?? 0,
        advertisers: count(bucket.advertisers),
        countries,
        dominant_country: countries[0]?.country ?? null,
        relevance: countries[0]?.share ?? 0,
        categories: (bucket.categories?.buckets ?? []).map((b) => ({
          category: String(b.key),
          ads: b.doc_count,
          share: total ? b.doc_count / total : 0,
        })),
        landing_domains: keysOf(bucket.landing_domains),
      };
      return { id, name_suffixes: nameSuffixes(record.name), ads_total: total, record };
    }
    case 'creatives': {
      const record: CreativeRecord = {
        id,
        title: first.creative_title ?? '',
        creative_format: first.creative_format ?? 'image',
        ads_count: total,
        advertisers_count: count(bucket.advertisers),
        platforms: (keysOf(bucket.platforms) as Platform[]).sort(),
        first_seen_date: dateOf(bucket.first_seen),
        last_seen_date: dateOf(bucket.last_seen),
        media: first.media ?? [],
        countries: keysOf(bucket.countries),
        advertiser_ids: keysOf(bucket.advertiser_ids),
        sample_ad_ids: topSources(bucket.samples).flatMap((s) => (s.id ? [s.id] : [])),
      };
      return { id, name_suffixes: nameSuffixes(record.title), ads_total: total, record };
    }
    case 'domains': {
      const record: Domain = {
        domain: id,
        ads_total: total,
        active_ads: bucket.active?.doc_count ?? 0,
        advertisers: count(bucket.advertisers),
        subdomains: (bucket.subdomains?.buckets ?? []).map((b) => ({ host: String(b.key), ads: b.doc_count })),
        countries,
        top_advertisers: namedList(bucket.top_advertisers),
      };
      return { id, name_suffixes: nameSuffixes(id), ads_total: total, record };
    }
    case 'apps': {
      const app = first.app;
      const record: App = {
        id,
        name: app?.name ?? id,
        store: app?.store ?? 'google_play',
        bundle_id: app?.bundle_id ?? '',
        ads_total: total,
        advertisers: count(bucket.advertisers),
        advertiser_list: namedList(bucket.advertiser_list),
        countries,
      };
      return { id, name_suffixes: nameSuffixes(record.name, record.bundle_id), ads_total: total, record };
    }
  }
}

/** The list rows are the records' leading fields; the lists never carry the detail. */
export const toAdvertiserMatch = (a: Advertiser): AdvertiserMatch => ({
  id: a.id,
  name: a.name,
  platforms: a.platforms,
  ads_total: a.ads_total,
  active_ads: a.active_ads,
});
export const toWebmasterRow = (w: Webmaster): WebmasterRow => ({
  id: w.id,
  name: w.name,
  ads_total: w.ads_total,
  active_ads: w.active_ads,
  advertisers: w.advertisers,
  countries: w.countries,
  dominant_country: w.dominant_country,
  relevance: w.relevance,
});
export const toCreativeRow = (c: CreativeRecord): CreativeRow => ({
  id: c.id,
  title: c.title,
  creative_format: c.creative_format,
  ads_count: c.ads_count,
  advertisers_count: c.advertisers_count,
  platforms: c.platforms,
  first_seen_date: c.first_seen_date,
  last_seen_date: c.last_seen_date,
});
export const toDomainRow = (d: Domain): DomainRow => ({
  domain: d.domain,
  ads_total: d.ads_total,
  active_ads: d.active_ads,
  advertisers: d.advertisers,
});
export const toAppRow = (a: App): AppRow => ({
  id: a.id,
  name: a.name,
  store: a.store,
  bundle_id: a.bundle_id,
  ads_total: a.ads_total,
  advertisers: a.advertisers,
});
