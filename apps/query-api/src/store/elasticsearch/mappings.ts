import type { estypes } from '@elastic/elasticsearch';
import { ENTITY_KINDS, type EntityKind, type IndexNames } from './index-names';

/**
 * Analysis shared by every index: `words` lower-cases and splits on anything that is not a Unicode
 * letter or digit (the port's "words" rule, the same as the SQLite engine), so `q=promo` finds
 * "PROMO!" in a title and `https://shop.example.com/promo-sale` in a landing URL. Queries send the
 * already-split words as `term`s, so no query-side analysis can drift from the index side.
 */
const analysis: estypes.IndicesIndexSettingsAnalysis = {
  tokenizer: { words: { type: 'pattern', pattern: '[^\\p{L}\\p{N}]+' } },
  analyzer: { words: { type: 'custom', tokenizer: 'words', filter: ['lowercase'] } },
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

export interface IndexTemplate {
  name: string;
  index_patterns: string[];
  priority: number;
  template: {
    settings: estypes.IndicesIndexSettings;
    mappings: estypes.MappingTypeMapping;
    aliases?: Record<string, estypes.IndicesAlias>;
  };
  _meta: Record<string, unknown>;
}

const TEMPLATE_VERSION = 1;

/** Composable index templates: installed before the first write, applied to every index as it is created. */
export function indexTemplates(names: IndexNames, shards = 1, replicas = 1): IndexTemplate[] {
  const settings = (refresh: string): estypes.IndicesIndexSettings => ({
    number_of_shards: shards,
    number_of_replicas: replicas,
    refresh_interval: refresh,
    analysis,
  });
  const ads: IndexTemplate = {
    name: names.adsTemplate,
    index_patterns: [names.adsPattern],
    priority: 200,
    template: {
      settings: {
        ...settings('30s'),
        // Most searches sort by first_seen_date desc: index sorting lets them stop early.
        sort: { field: ['first_seen_date', 'id'], order: ['desc', 'asc'] },
      },
      mappings: { dynamic: 'strict', properties: adProperties },
      aliases: { [names.ads]: {} },
    },
    _meta: { owner: 'query-api', version: TEMPLATE_VERSION },
  };
  const entities = ENTITY_KINDS.map(
    (kind): IndexTemplate => ({
      name: names.entityTemplate(kind),
      index_patterns: [names.entityPattern(kind)],
      priority: 200,
      template: {
        settings: settings('1s'),
        mappings: { dynamic: 'strict', properties: entityProperties(kind) },
      },
      _meta: { owner: 'query-api', version: TEMPLATE_VERSION },
    }),
  );
  return [ads, ...entities];
}
