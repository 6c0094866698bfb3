/**
 * Index layout of the Elasticsearch engine. Everything an offline load writes belongs to one GENERATION (17 digits, the
 * load's start time, `yyyyMMddHHmmssSSS`): its monthly ad indices `<prefix>-ads-<generation>-YYYY.MM` (named after the
 * month an ad was first seen, which rarely changes, so re-ingesting an ad overwrites the same document), its entity
 * rollups `<prefix>-<kind>-<generation>` and its change-feed position `<prefix>-feed-<generation>`. Readers and the
 * live path only ever name the aliases (`<prefix>-ads`, `<prefix>-<kind>`, `<prefix>-feed`): a load builds the next
 * generation beside the served one and moves every alias to it in one `_aliases` request when it is complete (ADR 0012).
 * The generation's index template attaches the read alias to a month the live path creates after the switch (rollover
 * by month = the next month's first document creates the next index).
 *
 * `generation` '' names the layout of stores loaded before generations (`<prefix>-ads-YYYY.MM`, a concrete
 * `<prefix>-feed` index): the live path keeps serving such a store, and its next offline load replaces it.
 */
export const ENTITY_KINDS = ['advertisers', 'webmasters', 'creatives', 'domains', 'apps'] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];

export interface IndexNames {
  readonly prefix: string;
  /** The generation these names write to ('' = the layout before generations). */
  readonly generation: string;
  /** Read alias over every monthly ad index of the served generation. */
  readonly ads: string;
  /** This generation's monthly ad indices (the pattern of its index template). */
  readonly adsPattern: string;
  /** This generation's ad index template. */
  readonly adsTemplate: string;
  adsIndexFor(firstSeenDate: string): string;
  /** Read alias of an entity kind (its served generation's index). */
  entity(kind: EntityKind): string;
  /** Pattern of an entity kind's generations (`<prefix>-<kind>-*`), for its template and mapping updates. */
  entityPattern(kind: EntityKind): string;
  entityGeneration(kind: EntityKind, generation: string): string;
  entityTemplate(kind: EntityKind): string;
  /** Alias of the change feed's position document (change-feed.ts). */
  readonly feed: string;
  /** This generation's feed index. */
  readonly feedIndex: string;
  /** The same names for another generation. */
  inGeneration(generation: string): IndexNames;
  /** The generation an index of this prefix belongs to (undefined: not a generation's index, e.g. the older layout). */
  generationOf(index: string): string | undefined;
}

export const GENERATION_DIGITS = 17;

/** A new generation's name: the time it starts, to the millisecond (sorts by age; names in logs say when). */
export const newGeneration = (now = new Date()): string => now.toISOString().replace(/[^0-9]/g, '');

export function indexNames(prefix: string, generation = ''): IndexNames {
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(prefix)) {
    throw new Error(`ES_INDEX_PREFIX must be lowercase letters, digits, - or _ (got ${JSON.stringify(prefix)})`);
  }
  if (!/^\d*$/.test(generation)) throw new Error(`a generation is digits (got ${JSON.stringify(generation)})`);
  const ads = generation ? `${prefix}-ads-${generation}` : `${prefix}-ads`;
  const kinds = ENTITY_KINDS.join('|');
  const generationIndex = new RegExp(`^${prefix.replace(/[-_]/g, '\\$&')}-(?:(?:ads-(\\d+)-\\d{4}\\.\\d{2})|(?:(?:${kinds}|feed)-(\\d+)))$`);
  return {
    prefix,
    generation,
    ads: `${prefix}-ads`,
    adsPattern: `${ads}-*`,
    adsTemplate: ads,
    adsIndexFor(firstSeenDate: string) {
      const match = /^(\d{4})-(\d{2})-\d{2}$/.exec(firstSeenDate);
      if (!match) throw new Error(`first_seen_date must be YYYY-MM-DD (got ${JSON.stringify(firstSeenDate)})`);
      return `${ads}-${match[1]}.${match[2]}`;
    },
    entity: (kind) => `${prefix}-${kind}`,
    entityPattern: (kind) => `${prefix}-${kind}-*`,
    entityGeneration: (kind, gen) => `${prefix}-${kind}-${gen}`,
    entityTemplate: (kind) => `${prefix}-${kind}`,
    feed: `${prefix}-feed`,
    feedIndex: generation ? `${prefix}-feed-${generation}` : `${prefix}-feed`,
    inGeneration: (other) => indexNames(prefix, other),
    generationOf(index) {
      const match = generationIndex.exec(index);
      return match ? (match[1] ?? match[2]) : undefined;
    },
  };
}
