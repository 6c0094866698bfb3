import type { estypes } from '@elastic/elasticsearch';
import { DEFAULT_LAYOUT, type IndexLayout } from './es-client';
import { ENTITY_KINDS, type EntityKind, type IndexNames } from './index-names';

/**
 * Analysis shared by every index: `words` lower-cases and splits on anything that is not a Unicode
 * letter or digit (the port's "words" rule, the same as the SQLite engine), so `q=promo` finds
 * "PROMO!" in a title and `https://shop.example.com/promo-sale` in a landing URL. Queries send the
 * already-split words as `term`s, so no query-side analysis can drift from the index side.
 */
const analysis: estypes.IndicesIndexSettingsAnalysis = {
  tokenizer: { words: { type: 'pattern', pattern: '[^\\p{L}\\p{N}]+' } },
  // Lucene refuses a term over 32,766 bytes ("immense term") and with it the whole document: a long run of letters
  // in a landing URL would do. 8,000 characters of at most 4 UTF-8 bytes stay below; no query word is that long.
  filter: { bounded: { type: 'truncate', length: 8_000 } },
  analyzer: { words: { type: 'custom', tokenizer: 'words', filter: ['lowercase', 'bounded'] } },
};

const keyword: estypes.MappingProperty = { type: 'keyword' };
const date: estypes.MappingProperty = { type: 'date', format: 'strict_date' };
const integer: estypes.MappingProperty = { type: 'integer' };
const words: estypes.MappingProperty = { type: 'text', analyzer: 'words' };
/** Stored with the document, never searched. */
const stored: estypes.MappingProperty = { type: 'object', enabled: false };

/** One ad. Ids are keywords: 18-digit platform ids would lose precision as JSON numbers. */
const adProperties: Record<string, estypes.MappingProperty> = {
  id: keyword,
  title: { type: 'text', analyzer: 'words', copy_to: 'search_text' },
  body: { type: 'text', analyzer: 'words', copy_to: 'search_text' },
  landing_url: { type: 'keyword', index: false, doc_values: false, copy_to: 'search_text' },
  /** title + body + landing URL words, so every word of `q` may come from any of the three. */
  search_text: words,
  landing_domain: keyword,
  /** The host and every parent domain (domain-suffixes.ts): the subdomain rule is one `term`. */
  landing_domain_suffixes: keyword,
  registrable_domain: keyword,
  platform_name: keyword,
  advertiser_id: keyword,
  advertiser_name: { type: 'keyword', index: false },
  /** `<platform>:<account id>`, for the merged advertiser's platform accounts. */
  platform_account: keyword,
  webmaster_id: keyword,
  webmaster_name: { type: 'keyword', index: false },
  status_today: keyword,
  days_active: integer,
  first_seen_date: date,
  last_seen_date: date,
  /** [first_seen_date, last_seen_date]: "active in a window" is one `intersects` range query, and a
   * date_histogram over it counts an ad on every day it was active (timeline, advertiser activity). */
  active_period: { type: 'date_range', format: 'strict_date' },
  countries: keyword,
  languages: keyword,
  categories: keyword,
  creative_format: keyword,
  destination_type: keyword,
  media_count: integer,
  creative_id: keyword,
  creative_title: { type: 'keyword', index: false },
  app_id: keyword,
  impressions: { type: 'long' },
  popularity: { type: 'double' },
  activity_days_amount: integer,
  /** Media and app detail travel untouched. */
  media: stored,
  app: stored,
  /** The change feed (change-feed.ts): the batch of the last visible change (the feed's order), and when it was applied. */
  change_seq: { type: 'long' },
  changed_at: { type: 'date' },
  /** The watermarks from which the ad is in the feed: "changed since P" is one `term` on it. */
  feed_since: { type: 'long_range' },
  /** The ad's visible states since the retention floor, to say what changed since a watermark. */
  feed: stored,
};

/**
 * Entity records are rollups written by the writer's finish() step and upserted by apply() (one per
 * advertiser, webmaster, creative, registrable domain, app). `record` is the port's full record; the other fields are what
 * lists search and sort on.
 */
function entityProperties(kind: EntityKind): Record<string, estypes.MappingProperty> {
  return {
    id: keyword,
    /** Every word-boundary suffix of the normalised name: prefix-and-word search is one `prefix` query. */
    name_suffixes: keyword,
    /** ads_total (creatives: ads_count): lists sort on it, id breaks ties. */
    ads_total: integer,
    ...(kind === 'advertisers' ? { webmaster_ids: keyword } : {}),
    record: stored,
  };
}

/** A composable index template as the put-index-template API takes it (name, patterns, template, version). */
export type IndexTemplate = estypes.IndicesPutIndexTemplateRequest & {
  template: { settings: estypes.IndicesIndexSettings; mappings: estypes.MappingTypeMapping };
};

/**
 * Raise with every change of a mapping or setting below. The writer installs the templates and puts the mappings on
 * every existing index of each pattern when it starts (putMappings), so a new field reaches the months already
 * created; settings and analysis reach only indices created afterwards (Elasticsearch fixes them at creation).
 */
export const TEMPLATE_VERSION = 3;

/**
 * Entity deletes are external-versioned (live.query.ts): Elasticsearch keeps a delete's version as a tombstone for
 * `index.gc_deletes` only (60 s by default), after which an older recomputation could bring the entity back. An hour
 * is far above the time one batch takes, and tombstones are few (entities left without ads).
 */
const ENTITY_TOMBSTONES = '1h';

/** The ad index mapping, as the template creates it and putMappings brings it to existing months. */
export const adMapping: estypes.MappingTypeMapping = { dynamic: 'strict', properties: adProperties };
export const entityMapping = (kind: EntityKind): estypes.MappingTypeMapping => ({ dynamic: 'strict', properties: entityProperties(kind) });

/**
 * Composable index templates, applied to every index as it is created: one per generation for its monthly ad indices
 * (the configured primaries per month, sizing rule in docs/operations.md), one per entity kind (one primary: they are
 * few and small). A generation's ad template attaches the read alias only once the generation is served
 * (`readable`): while a load builds it, a month it creates stays out of the readers' sight; after the switch, a month
 * the live path creates joins them. Priority 201: above the single ad template of the layout before generations
 * (200, pattern `<prefix>-ads-*`), which Elasticsearch would otherwise refuse as an overlap of equal priority.
 */
export function adsTemplate(names: IndexNames, layout: IndexLayout = DEFAULT_LAYOUT, readable = true): IndexTemplate {
  return {
    name: names.adsTemplate,
    index_patterns: [names.adsPattern],
    priority: names.generation ? 201 : 200,
    version: TEMPLATE_VERSION,
    template: {
      settings: {
        // 1 s (Elastic's default): the live path's bulk requests wait for the next refresh (refresh=wait_for).
        ...indexSettings(layout, layout.adsShards),
        // The default page (first_seen_date desc, id desc) is this index sort, so Lucene stops it early; the index
        // sort's `missing` is `_last`, as the query's (ads.query.ts).
        sort: { field: ['first_seen_date', 'id'], order: ['desc', 'desc'] },
      },
      mappings: adMapping,
      aliases: readable ? { [names.ads]: {} } : {},
    },
    _meta: META,
  };
}

export function entityTemplates(names: IndexNames, layout: IndexLayout = DEFAULT_LAYOUT): IndexTemplate[] {
  return ENTITY_KINDS.map(
    (kind): IndexTemplate => ({
      name: names.entityTemplate(kind),
      index_patterns: [names.entityPattern(kind)],
      priority: 200,
      version: TEMPLATE_VERSION,
      template: { settings: { ...indexSettings(layout, 1), gc_deletes: ENTITY_TOMBSTONES }, mappings: entityMapping(kind) },
      _meta: META,
    }),
  );
}

/** Every template of a served generation: its ad template (with the read alias) and the entity templates. */
export function indexTemplates(names: IndexNames, layout: IndexLayout = DEFAULT_LAYOUT): IndexTemplate[] {
  return [adsTemplate(names, layout), ...entityTemplates(names, layout)];
}

const META = { owner: 'query-api' };

const indexSettings = (layout: IndexLayout, shards: number): estypes.IndicesIndexSettings => ({
  number_of_shards: shards,
  number_of_replicas: layout.replicas,
  refresh_interval: '1s',
  analysis,
});

/** Put-mapping requests bringing every existing index of each template to its current mapping (a no-op when equal). */
export function putMappingRequests(names: IndexNames): estypes.IndicesPutMappingRequest[] {
  const tolerant = { allow_no_indices: true, ignore_unavailable: true };
  return [
    // Every generation's months (and those of the layout before generations).
    { index: `${names.prefix}-ads-*`, ...tolerant, ...adMapping },
    ...ENTITY_KINDS.map((kind) => ({ index: names.entityPattern(kind), ...tolerant, ...entityMapping(kind) })),
  ];
}
