/**
 * Index layout of the Elasticsearch engine. Ads live in monthly indices named after the month an ad
 * was first seen (`<prefix>-ads-YYYY.MM`); that month rarely changes, so re-ingesting an ad with a later
 * last_seen_date overwrites the same document (when it does change, the live path writes the ad into the
 * new month and deletes the old copy). Reads go through the alias `<prefix>-ads`, which the index
 * template attaches to every monthly index as it is created (rollover by month = the next month's first
 * document creates the next index). Entities are rebuilt by each offline load into a fresh generation
 * index `<prefix>-<kind>-<generation>`; the alias `<prefix>-<kind>` then moves to it in one atomic step,
 * so readers never see a half-built rollup. Live batches upsert the entities they touch through the alias.
 */
export const ENTITY_KINDS = ['advertisers', 'webmasters', 'creatives', 'domains', 'apps'] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];

export interface IndexNames {
  readonly prefix: string;
  /** Read alias over every monthly ad index. */
  readonly ads: string;
  /** Pattern the ad index template applies to. */
  readonly adsPattern: string;
  readonly adsTemplate: string;
  adsIndexFor(firstSeenDate: string): string;
  /** Read alias of an entity kind, swapped atomically to each new rollup generation. */
  entity(kind: EntityKind): string;
  /** Pattern of an entity kind's generations (`<prefix>-<kind>-<generation>`). */
  entityPattern(kind: EntityKind): string;
  entityGeneration(kind: EntityKind, generation: string): string;
  entityTemplate(kind: EntityKind): string;
  /** The change feed's position document lives here (change-feed.ts). */
  readonly feed: string;
}

export function indexNames(prefix: string): IndexNames {
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(prefix)) {
    throw new Error(`ES_INDEX_PREFIX must be lowercase letters, digits, - or _ (got ${JSON.stringify(prefix)})`);
  }
  return {
    prefix,
    ads: `${prefix}-ads`,
    adsPattern: `${prefix}-ads-*`,
    adsTemplate: `${prefix}-ads`,
    adsIndexFor(firstSeenDate: string) {
      const match = /^(\d{4})-(\d{2})-\d{2}$/.exec(firstSeenDate);
      if (!match) throw new Error(`first_seen_date must be YYYY-MM-DD (got ${JSON.stringify(firstSeenDate)})`);
      return `${prefix}-ads-${match[1]}.${match[2]}`;
    },
    entity: (kind) => `${prefix}-${kind}`,
    entityPattern: (kind) => `${prefix}-${kind}-*`,
    entityGeneration: (kind, generation) => `${prefix}-${kind}-${generation}`,
    entityTemplate: (kind) => `${prefix}-${kind}`,
    feed: `${prefix}-feed`,
  };
}
