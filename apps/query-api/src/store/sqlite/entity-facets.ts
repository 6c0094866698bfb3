import type {
  Advertiser,
  AdvertiserMatch,
  App,
  AppRow,
  CountryVolume,
  CreativeFormat,
  CreativeRow,
  Domain,
  DomainRow,
  Platform,
  Webmaster,
  WebmasterRow,
} from '@adintel/contracts';
import type { AdRecord, CatalogData } from '../ad-store.port';

/**
 * Entity records as sums. Every ad adds one to a set of counters ("facets") of each entity it belongs to: its
 * advertiser's countries, its domain's hosts, its creative's first-seen dates... An entity record is rendered from its
 * counters alone. So a batch of sightings changes only the counters of the entities it touches (an ad replaced by
 * a re-sighting takes its old contribution back and adds its new one), and only those records are rendered again;
 * a full load adds every ad up in memory and renders every record with the same functions.
 */
export type EntityKind = 'advertiser' | 'webmaster' | 'creative' | 'domain' | 'app';
/** The store-wide counters behind the catalog (kind 'store', id ''). */
export type FacetKind = EntityKind | 'store';

/** The counter of one key of one facet of one entity. */
export interface FacetDelta {
  kind: FacetKind;
  id: string;
  facet: string;
  key: string;
  n: number;
}

/** Scalar counters use this key. */
const SCALAR = '';
/** Facets whose number of keys a record shows (distinct creatives of an advertiser...): kept as the scalar `#` + facet. */
export const DISTINCT_FACETS = new Set(['creative', 'webmaster', 'advertiser']);
export const distinctFacet = (facet: string) => `#${facet}`;

/** What one ad counts for (see AdColumns' ColumnSource for the row it is read from). */
export interface FacetSource {
  id: string;
  platform: string;
  advertiser_id: string;
  advertiser_name: string;
  advertiser_account: string;
  webmaster_id: string | null;
  webmaster_name: string | null;
  app_id: string | null;
  app_doc: string | null;
  creative_id: string;
  creative_format: string;
  status: string;
  first_seen: string;
  last_seen: string;
  registrable: string;
  host: string;
  countries: string[];
  categories: string[];
  languages: string[];
}

/** An ad record as the entity counters read it (the same values facetSourceOf reads back from its rows). */
export function facetSourceOfRecord(ad: AdRecord): FacetSource {
  return {
    id: ad.id,
    platform: ad.platform_name,
    advertiser_id: ad.advertiser_id,
    advertiser_name: ad.advertiser_name,
    advertiser_account: ad.advertiser_account_id,
    webmaster_id: ad.webmaster_id,
    webmaster_name: ad.webmaster_name,
    app_id: ad.app_id,
    app_doc: ad.app ? JSON.stringify(ad.app) : null,
    creative_id: ad.creative_id,
    creative_format: ad.creative_format,
    status: ad.status_today,
    first_seen: ad.first_seen_date,
    last_seen: ad.last_seen_date,
    registrable: ad.registrable_domain,
    host: ad.landing_domain,
    countries: [...new Set(ad.countries)],
    categories: [...new Set(ad.categories)],
    languages: [...new Set(ad.languages)],
  };
}

/** Adds `n` to the counter of `key` in `facet` of one entity. */
export type AddToEntity = (facet: string, key: string, n: number) => void;

/** Where an ad's counts go: the counters of one entity at a time (looked up once per entity, not once per counter). */
export interface FacetSink {
  entity(kind: FacetKind, id: string): AddToEntity;
}

/**
 * The kinds whose counters are stored (entity_facets). A creative has a few ads (the ads_by_creative index finds them),
 * so a live batch renders it from its ads (EntityRecords.creativeFacets) instead of from stored counters: a third of
 * the counters a load would write, and most of a batch's counter writes, are not needed.
 */
export const STORED_KINDS: ReadonlySet<FacetKind> = new Set<FacetKind>(['advertiser', 'webmaster', 'domain', 'app', 'store']);

/**
 * The kinds whose records (or the catalog) show a first and last seen date: only these count the ads' dates, a key
 * per distinct date (webmasters, domains and apps show none: their dates were most of the counters a load wrote).
 * Dates are counted in memory only (a load's totals, a batch's changes), never stored: a record shows their min and
 * max, which a batch moves by arithmetic (extremeAfter, decisions/0016).
 */
export const DATED_KINDS: ReadonlySet<FacetKind> = new Set<FacetKind>(['advertiser', 'creative', 'store']);

/** The facets of the ads' dates (DATED_KINDS): `first` counts first-seen dates, `last` last-seen dates. */
export const isDateFacet = (facet: string): boolean => facet === 'first' || facet === 'last';

/**
 * The smallest (`min`) or largest (`max`) key of a date facet after a batch, by arithmetic: `stored` is the extreme
 * the entity's record showed before it (null or '' when it had no ads), `changes` the batch's net change per date.
 * A date added at or past the stored extreme is the new extreme; otherwise the stored one stays unless the batch took
 * ads away from it, and then only the ads can tell whether others still hold it: null (recompute it). '' when the
 * entity has no dates at all.
 */
export function extremeAfter(stored: string | null, changes: Iterable<[string, number]>, end: 'min' | 'max'): string | null {
  const beyond = end === 'max' ? (a: string, b: string) => a > b : (a: string, b: string) => a < b;
  let added: string | null = null;
  let takenFromStored = false;
  for (const [key, n] of changes) {
    if (n > 0 && (added === null || beyond(key, added))) added = key;
    else if (n < 0 && key === stored) takenFromStored = true;
  }
  if (!stored) return added ?? '';
  if (added !== null && !beyond(stored, added)) return added;
  return takenFromStored ? null : stored;
}

/** Adds the ad to every counter it counts for (sign -1: takes it back). */
export function eachFacet(ad: FacetSource, sign: 1 | -1, sink: FacetSink): void {
  const entity = (kind: FacetKind, id: string): AddToEntity => {
    const add = sink.entity(kind, id);
    countAd(ad, sign, add, DATED_KINDS.has(kind));
    return add;
  };
  const each = (add: AddToEntity, facet: string, keys: string[]) => {
    for (const key of keys) add(facet, key, sign);
  };

  const advertiser = entity('advertiser', ad.advertiser_id);
  advertiser('name', ad.advertiser_name, sign);
  advertiser('platform', ad.platform, sign);
  advertiser('account', `${ad.platform}\u0000${ad.advertiser_account}`, sign);
  advertiser('creative', ad.creative_id, sign);
  if (ad.webmaster_id) advertiser('webmaster', ad.webmaster_id, sign);
  each(advertiser, 'country', ad.countries);
  each(advertiser, 'category', ad.categories);
  advertiser('domain', ad.registrable, sign);

  if (ad.webmaster_id) {
    const webmaster = entity('webmaster', ad.webmaster_id);
    webmaster('name', ad.webmaster_name ?? ad.webmaster_id, sign);
    webmaster('advertiser', ad.advertiser_id, sign);
    each(webmaster, 'country', ad.countries);
    each(webmaster, 'category', ad.categories);
    webmaster('domain', ad.registrable, sign);
  }

  creativeFacets(ad, sign, entity('creative', ad.creative_id));

  const domain = entity('domain', ad.registrable);
  domain('advertiser', ad.advertiser_id, sign);
  domain('host', ad.host, sign);
  each(domain, 'country', ad.countries);

  if (ad.app_id && ad.app_doc) {
    const app = entity('app', ad.app_id);
    app('info', ad.app_doc, sign);
    app('advertiser', ad.advertiser_id, sign);
    each(app, 'country', ad.countries);
  }

  const store = entity('store', SCALAR);
  each(store, 'country', ad.countries);
  each(store, 'category', ad.categories);
  each(store, 'language', ad.languages);
}

/** What every ad counts for in each of its entities: `#ads`, `#active` and (`dated`) its first and last seen date. */
function countAd(ad: Pick<FacetSource, 'status' | 'first_seen' | 'last_seen'>, sign: 1 | -1, add: AddToEntity, dated: boolean): void {
  add('#ads', SCALAR, sign);
  if (ad.status === 'active') add('#active', SCALAR, sign);
  if (dated) {
    add('first', ad.first_seen, sign);
    add('last', ad.last_seen, sign);
  }
}

/** What one ad counts for in its creative's counters, apart from what countAd counts. */
function creativeFacets(ad: Pick<FacetSource, 'creative_format' | 'platform' | 'advertiser_id'>, sign: 1 | -1, creative: AddToEntity): void {
  creative('format', ad.creative_format, sign);
  creative('platform', ad.platform, sign);
  creative('advertiser', ad.advertiser_id, sign);
}

/** A creative's ads, as its counters read them (a live batch renders a creative from these: STORED_KINDS). */
export type CreativeAd = Pick<FacetSource, 'creative_format' | 'platform' | 'advertiser_id' | 'status' | 'first_seen' | 'last_seen'>;

/** The counters of one creative, from all its ads: the same as a full load's (eachFacet), for renderEntity. */
export function creativeFacetsOf(ads: Iterable<CreativeAd>): Facets {
  const totals = new FacetTotals(true);
  const add = totals.entity('creative', '');
  for (const ad of ads) {
    countAd(ad, 1, add, DATED_KINDS.has('creative'));
    creativeFacets(ad, 1, add);
  }
  for (const [, , facets] of totals.entities()) return facets;
  return memoryFacets(new Map());
}

/** The counters of one entity, as a renderer reads them (in memory for a full load, from SQLite for a batch). */
export interface Facets {
  /** Every key of the facet with a count above 0, in any order. */
  entries(facet: string): [string, number][];
  /** A scalar counter (`#ads`, `#active`, or `#` + a distinct facet). */
  scalar(name: string): number;
  /** The smallest and largest key of a facet (dates), null when it has none. */
  min(facet: string): string | null;
  max(facet: string): string | null;
  /** The `limit` keys with the most ads, ranked (ranked()): a record's head of a long list (SHOWN_HEADS). */
  top(facet: string, limit: number): [string, number][];
}

/** Sorted by count desc, key asc. */
export function ranked(entries: Iterable<[string, number]>, limit = Infinity): [string, number][] {
  return [...entries].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, limit);
}

/** How many keys of a ranked facet a record shows, and the keys as its full record lists them. */
export interface ShownHead {
  limit: number;
  keys(full: unknown): readonly string[];
}
const head = <R>(limit: number, keys: (full: R) => readonly string[]): ShownHead => ({ limit, keys: (full) => keys(full as R) });

/**
 * The long lists a record shows only the head of (a webmaster's top 20 of thousands of domains). A batch that only adds
 * to such a facet changes its head only by the keys it added to: EntityRecords ranks those with the head the stored
 * record shows, instead of reading every key.
 */
export const SHOWN_HEADS = {
  advertiser: { domain: head<Advertiser>(20, (r) => r.landing_domains) },
  webmaster: { domain: head<Webmaster>(20, (r) => r.landing_domains) },
  domain: { host: head<Domain>(50, (r) => r.subdomains.map((s) => s.host)), advertiser: head<Domain>(10, (r) => r.top_advertisers.map((a) => a.id)) },
  app: { advertiser: head<App>(20, (r) => r.advertiser_list.map((a) => a.id)) },
} satisfies { [K in EntityKind]?: Record<string, ShownHead> };

/** The shown head of `facet` of a kind's records, if its records show one. */
export const shownHead = (kind: FacetKind, facet: string): ShownHead | undefined =>
  (SHOWN_HEADS as { [K in FacetKind]?: Partial<Record<string, ShownHead>> })[kind]?.[facet];

/** The key most ads carry (ties: the smallest): the name of an entity whose ads disagree. */
const mostCommon = (f: Facets, facet: string) => f.top(facet, 1)[0]?.[0] ?? '';
const keysSorted = (f: Facets, facet: string) => f.entries(facet).map(([k]) => k).sort();

function countryVolumes(f: Facets, total: number): CountryVolume[] {
  return ranked(f.entries('country')).map(([country, ads]) => ({ country, ads, share: total ? ads / total : 0 }));
}

/** One rendered entity: its list row, its full record, its volume and the names the name search indexes. */
export interface RenderedEntity {
  adsTotal: number;
  row: unknown;
  full: unknown;
  names: string[];
}

/** Looks names up for the records that list other entities (a domain's top advertisers). */
export type NameOf = (kind: 'advertiser', id: string) => string;

/**
 * The record of an entity from its counters; null when no ad counts for it any more. `creativeTitle` is the title of
 * the creative's ad with the lowest id (the port's rule), which counters cannot tell.
 */
export function renderEntity(kind: EntityKind, id: string, f: Facets, nameOf: NameOf, creativeTitle: () => string): RenderedEntity | null {
  const ads = f.scalar('#ads');
  if (ads <= 0) return null;
  const active = f.scalar('#active');
  const first = f.min('first') ?? '';
  const last = f.max('last') ?? '';
  switch (kind) {
    case 'advertiser': {
      const name = mostCommon(f, 'name');
      const row: AdvertiserMatch = { id, name, platforms: keysSorted(f, 'platform') as Platform[], ads_total: ads, active_ads: active };
      const full: Advertiser = {
        ...row,
        platform_accounts: keysSorted(f, 'account')
          .map((pair) => pair.split('\u0000'))
          .map(([platform, account_id]) => ({ platform: platform as Platform, account_id: account_id ?? '' })),
        creatives: f.scalar(distinctFacet('creative')),
        webmasters: f.scalar(distinctFacet('webmaster')),
        countries: countryVolumes(f, ads),
        categories: ranked(f.entries('category')).map(([k]) => k),
        landing_domains: f.top('domain', SHOWN_HEADS.advertiser.domain.limit).map(([k]) => k),
        first_seen_date: first,
        last_seen_date: last,
      };
      return { adsTotal: ads, row, full, names: [name] };
    }
    case 'webmaster': {
      const name = mostCommon(f, 'name');
      const countries = countryVolumes(f, ads);
      const top = countries[0];
      const row: WebmasterRow = {
        id,
        name,
        ads_total: ads,
        active_ads: active,
        advertisers: f.scalar(distinctFacet('advertiser')),
        countries,
        dominant_country: top ? top.country : null,
        relevance: top ? top.share : 0,
      };
      const full: Webmaster = {
        ...row,
        categories: ranked(f.entries('category')).map(([category, n]) => ({ category, ads: n, share: n / ads })),
        landing_domains: f.top('domain', SHOWN_HEADS.webmaster.domain.limit).map(([k]) => k),
      };
      return { adsTotal: ads, row, full, names: [name] };
    }
    case 'creative': {
      const title = creativeTitle();
      const row: CreativeRow = {
        id,
        title,
        creative_format: mostCommon(f, 'format') as CreativeFormat,
        ads_count: ads,
        advertisers_count: f.scalar(distinctFacet('advertiser')),
        platforms: keysSorted(f, 'platform') as Platform[],
        first_seen_date: first,
        last_seen_date: last,
      };
      return { adsTotal: ads, row, full: row, names: [title] };
    }
    case 'domain': {
      const row: DomainRow = { domain: id, ads_total: ads, active_ads: active, advertisers: f.scalar(distinctFacet('advertiser')) };
      const full: Domain = {
        ...row,
        subdomains: f.top('host', SHOWN_HEADS.domain.host.limit).map(([host, n]) => ({ host, ads: n })),
        countries: countryVolumes(f, ads),
        top_advertisers: f.top('advertiser', SHOWN_HEADS.domain.advertiser.limit).map(([aid, n]) => ({ id: aid, name: nameOf('advertiser', aid), ads: n })),
      };
      return { adsTotal: ads, row, full, names: [id] };
    }
    case 'app': {
      const info = JSON.parse(mostCommon(f, 'info') || '{}') as Pick<AppRow, 'name' | 'store' | 'bundle_id'>;
      const row: AppRow = { ...info, id, ads_total: ads, advertisers: f.scalar(distinctFacet('advertiser')) };
      const full: App = {
        ...row,
        advertiser_list: f.top('advertiser', SHOWN_HEADS.app.advertiser.limit).map(([aid, n]) => ({ id: aid, name: nameOf('advertiser', aid), ads: n })),
        countries: countryVolumes(f, ads),
      };
      return { adsTotal: ads, row, full, names: [info.name, info.bundle_id] };
    }
  }
}

/** The catalog and the planner's value counts, from the store-wide counters. */
export function renderCatalog(f: Facets): { catalog: CatalogData; valueCounts: { n: number; countries: Record<string, number>; categories: Record<string, number> } } {
  const countries = ranked(f.entries('country'));
  const categories = ranked(f.entries('category'));
  return {
    catalog: {
      countries: countries.map(([k]) => k),
      categories: categories.map(([k]) => k),
      languages: ranked(f.entries('language')).map(([k]) => k),
      firstSeenDate: f.min('first'),
      lastSeenDate: f.max('last'),
      // Read from the ad columns (AdReader.coverage), current to the last live batch.
      coverage: [],
    },
    valueCounts: { n: f.scalar('#ads'), countries: Object.fromEntries(countries), categories: Object.fromEntries(categories) },
  };
}

/**
 * Counters in memory: a full load adds every ad up here, then renders every entity from it; a live batch adds up its
 * changes here before they go to the facet table.
 */
export class FacetTotals implements FacetSink {
  /** kind -> id -> facet -> its counters (nested by kind, not keyed by kind + id: no string is built per ad and entity). */
  private readonly byKind = new Map<FacetKind, Map<string, Map<string, FacetCounts>>>();

  /**
   * `extremesOnly`: a full load's totals (adds only), where a date facet keeps just its earliest first and latest last
   * date (all a record shows, and dates are not stored): a key per distinct date per entity was most of its counters.
   */
  constructor(private readonly extremesOnly = false) {}

  entity(kind: FacetKind, id: string): AddToEntity {
    let ids = this.byKind.get(kind);
    if (!ids) this.byKind.set(kind, (ids = new Map()));
    let facets = ids.get(id);
    if (!facets) ids.set(id, (facets = new Map()));
    const entityFacets = facets;
    const extremesOnly = this.extremesOnly;
    return (facet, key, n) => {
      let counts = entityFacets.get(facet);
      if (!counts) entityFacets.set(facet, (counts = { keys: new Map(), lastKey: null, last: null }));
      if (extremesOnly && isDateFacet(facet)) {
        if (n < 0) throw new Error('a full load only adds');
        const held = counts.lastKey;
        if (held === null || (facet === 'first' ? key < held : key > held)) {
          counts.keys.clear();
          counts.keys.set(key, (counts.last = { n }));
          counts.lastKey = key;
        }
        return;
      }
      // Most facets repeat their key from ad to ad of an entity (its name, its platform): then no map is looked up.
      let counter = counts.lastKey === key ? counts.last : counts.keys.get(key);
      if (!counter) counts.keys.set(key, (counter = { n: 0 }));
      counter.n += n;
      if (counter.n === 0) {
        counts.keys.delete(key);
        counts.lastKey = counts.last = null;
      } else {
        counts.lastKey = key;
        counts.last = counter;
      }
    };
  }

  /** The facets of one entity with a counter that is not 0 (in a batch's changes: what moved). */
  facetsOf(kind: FacetKind, id: string): string[] {
    const names: string[] = [];
    for (const [facet, counts] of this.byKind.get(kind)?.get(id) ?? []) if (counts.keys.size) names.push(facet);
    return names;
  }

  /** The counters of one facet of one entity, as (key, n) (in a batch's changes: the net change per key). */
  entries(kind: FacetKind, id: string, facet: string): [string, number][] {
    return [...(this.byKind.get(kind)?.get(id)?.get(facet)?.keys ?? [])].map(([key, counter]) => [key, counter.n]);
  }

  /** The ids of `kind` with a counter that is not 0 (in a batch's changes: the entities whose counts moved). */
  *changed(kind: FacetKind): Generator<string> {
    for (const [id, facets] of this.byKind.get(kind) ?? []) {
      for (const counts of facets.values()) {
        if (counts.keys.size) {
          yield id;
          break;
        }
      }
    }
  }

  /** Every entity, as (kind, id, its counters). */
  *entities(): Generator<[FacetKind, string, Facets]> {
    for (const [kind, ids] of this.byKind) for (const [id, facets] of ids) yield [kind, id, memoryFacets(facets)];
  }

  /**
   * Every stored counter (STORED_KINDS, dates aside: they are not stored) that is not 0, in (kind, id, facet, key) order
   * (the facet table's key: appending is cheap). As totals of a full load, `withDistinct` adds the distinct-count
   * scalars; as a batch's changes, counters are deltas.
   */
  *counters(withDistinct: boolean): Generator<FacetDelta> {
    const rows: FacetDelta[] = [];
    this.eachCounter(withDistinct, (kind, id, facet, key, n) => rows.push({ kind, id, facet, key, n }));
    yield* rows;
  }

  /**
   * counters() as calls, without an object per counter (a full load has about one counter per ad). Strings sort by
   * UTF-16 code units here, as `<` compares them.
   */
  eachCounter(
    withDistinct: boolean,
    fn: (kind: FacetKind, id: string, facet: string, key: string, n: number) => void,
    kinds: ReadonlySet<FacetKind> = STORED_KINDS,
  ): void {
    for (const kind of [...this.byKind.keys()].filter((k) => kinds.has(k)).sort()) {
      const ids = this.byKind.get(kind) ?? new Map<string, Map<string, FacetCounts>>();
      for (const id of [...ids.keys()].sort()) {
        const facets = ids.get(id) ?? new Map<string, FacetCounts>();
        const names: string[] = [];
        for (const [facet, counts] of facets) {
          if (isDateFacet(facet)) continue;
          names.push(facet);
          if (withDistinct && DISTINCT_FACETS.has(facet) && counts.keys.size) names.push(distinctFacet(facet));
        }
        for (const facet of names.sort()) {
          const counts = facets.get(facet);
          if (!counts) {
            // A distinct-count scalar: the number of keys of the facet it counts.
            fn(kind, id, facet, SCALAR, facets.get(facet.slice(1))?.keys.size ?? 0);
            continue;
          }
          const keys = [...counts.keys.keys()];
          if (keys.length > 1) keys.sort();
          for (const key of keys) fn(kind, id, facet, key, counts.keys.get(key)?.n ?? 0);
        }
      }
    }
  }
}

/** The counters of one facet of one entity (none is 0: a counter back at 0 is deleted), and the last one added to. */
interface FacetCounts {
  keys: Map<string, { n: number }>;
  lastKey: string | null;
  last: { n: number } | null;
}

function memoryFacets(facets: Map<string, FacetCounts>): Facets {
  const keysOf = (facet: string) => [...(facets.get(facet)?.keys.keys() ?? [])];
  const entries = (facet: string) => [...(facets.get(facet)?.keys ?? [])].map(([key, counter]): [string, number] => [key, counter.n]);
  return {
    entries,
    scalar: (name) => {
      if (name.startsWith('#') && DISTINCT_FACETS.has(name.slice(1))) return facets.get(name.slice(1))?.keys.size ?? 0;
      return facets.get(name)?.keys.get(SCALAR)?.n ?? 0;
    },
    min: (facet) => keysOf(facet).reduce<string | null>((m, k) => (m === null || k < m ? k : m), null),
    max: (facet) => keysOf(facet).reduce<string | null>((m, k) => (m === null || k > m ? k : m), null),
    top: (facet, limit) => ranked(entries(facet), limit),
  };
}

/** Keys and their counts in two short arrays: a creative has one format, a platform or two, an advertiser or two. */
class FewCounts {
  readonly keys: string[] = [];
  readonly counts: number[] = [];

  add(key: string, n: number): void {
    const at = this.keys.indexOf(key);
    if (at < 0) {
      this.keys.push(key);
      this.counts.push(n);
    } else this.counts[at] = (this.counts[at] ?? 0) + n;
  }

  entries(): [string, number][] {
    return this.keys.map((key, i) => [key, this.counts[i] ?? 0]);
  }
}

/**
 * An entity's counters in a full load, adds only: what every ad adds to (`#ads`, `#active`) and the dates' extremes
 * are fields, not a map's keys (they were about half of a load's calls); the other facets' keys are the subclass's.
 * Read as the same Facets as FacetTotals'.
 */
abstract class LoadCounts implements Facets {
  protected ads = 0;
  protected active = 0;
  private first: string | null = null;
  private last: string | null = null;

  readonly add: AddToEntity = (facet, key, n) => {
    if (n < 0) throw new Error('a full load only adds');
    if (facet === '#ads') this.ads += n;
    else if (facet === '#active') this.active += n;
    else if (facet === 'first') this.first = this.first === null || key < this.first ? key : this.first;
    else if (facet === 'last') this.last = this.last === null || key > this.last ? key : this.last;
    else this.addKey(facet, key, n);
  };

  protected abstract addKey(facet: string, key: string, n: number): void;

  /** How many keys a facet has (a distinct-count scalar). */
  protected abstract keyCount(facet: string): number;

  abstract entries(facet: string): [string, number][];

  scalar(name: string): number {
    if (name === '#ads') return this.ads;
    if (name === '#active') return this.active;
    return name.startsWith('#') && DISTINCT_FACETS.has(name.slice(1)) ? this.keyCount(name.slice(1)) : 0;
  }

  min(facet: string): string | null {
    return facet === 'first' ? this.first : null;
  }

  max(facet: string): string | null {
    return facet === 'last' ? this.last : null;
  }

  top(facet: string, limit: number): [string, number][] {
    return ranked(this.entries(facet), limit);
  }
}

/**
 * One creative's counters in a full load: a few arrays instead of a map per facet (a load has a creative for every
 * three ads or so, and maps per creative were most of its memory).
 */
class CreativeCounts extends LoadCounts {
  private readonly facets = new Map<string, FewCounts>();

  protected addKey(facet: string, key: string, n: number): void {
    let counts = this.facets.get(facet);
    if (!counts) this.facets.set(facet, (counts = new FewCounts()));
    counts.add(key, n);
  }

  protected keyCount(facet: string): number {
    return this.facets.get(facet)?.keys.length ?? 0;
  }

  entries(facet: string): [string, number][] {
    return this.facets.get(facet)?.entries() ?? [];
  }
}

/** The counters of one key set (a facet of an entity) in a full load: adds only, so none is ever 0. */
interface LoadKeys {
  keys: Map<string, { n: number }>;
  lastKey: string | null;
  last: { n: number } | null;
}

/**
 * One stored entity's counters in a full load: a map of key counts per facet. Gives its counters as FacetTotals'
 * (extremesOnly) would, which it replaces in a load.
 */
class EntityCounts extends LoadCounts {
  readonly facets = new Map<string, LoadKeys>();

  protected addKey(facet: string, key: string, n: number): void {
    let counts = this.facets.get(facet);
    if (!counts) this.facets.set(facet, (counts = { keys: new Map(), lastKey: null, last: null }));
    // Most facets repeat their key from ad to ad of an entity (its name, its platform): then no map is looked up.
    let counter = counts.lastKey === key ? counts.last : counts.keys.get(key);
    if (!counter) counts.keys.set(key, (counter = { n: 0 }));
    counter.n += n;
    counts.lastKey = key;
    counts.last = counter;
  }

  protected keyCount(facet: string): number {
    return this.facets.get(facet)?.keys.size ?? 0;
  }

  entries(facet: string): [string, number][] {
    return [...(this.facets.get(facet)?.keys ?? [])].map(([key, counter]) => [key, counter.n]);
  }

  /**
   * Its stored counters (dates aside) in (facet, key) order, with the distinct-count scalars, as FacetTotals'
   * eachCounter(true) gives them: `#ads` always, `#active` when some ad is active, a scalar's key ''.
   */
  eachCounter(fn: (facet: string, key: string, n: number) => void): void {
    const names: string[] = ['#ads'];
    if (this.active > 0) names.push('#active');
    for (const [facet, counts] of this.facets) {
      names.push(facet);
      if (DISTINCT_FACETS.has(facet) && counts.keys.size) names.push(distinctFacet(facet));
    }
    for (const facet of names.sort()) {
      if (facet === '#ads') fn(facet, SCALAR, this.ads);
      else if (facet === '#active') fn(facet, SCALAR, this.active);
      else {
        const counts = this.facets.get(facet);
        if (!counts) {
          fn(facet, SCALAR, this.facets.get(facet.slice(1))?.keys.size ?? 0);
          continue;
        }
        const keys = [...counts.keys.keys()];
        if (keys.length > 1) keys.sort();
        for (const key of keys) fn(facet, key, counts.keys.get(key)?.n ?? 0);
      }
    }
  }
}

/**
 * The counters of a full load (adds only): the stored kinds in EntityCounts, creatives (never stored: STORED_KINDS) in
 * CreativeCounts.
 */
export class LoadTotals implements FacetSink {
  /** kind -> id -> counters, the kinds in the order they came. */
  private readonly stored = new Map<FacetKind, Map<string, EntityCounts>>();
  private readonly creatives = new Map<string, CreativeCounts>();

  entity(kind: FacetKind, id: string): AddToEntity {
    if (kind === 'creative') {
      let counts = this.creatives.get(id);
      if (!counts) this.creatives.set(id, (counts = new CreativeCounts()));
      return counts.add;
    }
    let ids = this.stored.get(kind);
    if (!ids) this.stored.set(kind, (ids = new Map()));
    let counts = ids.get(id);
    if (!counts) ids.set(id, (counts = new EntityCounts()));
    return counts.add;
  }

  /** Every entity, as (kind, id, its counters). */
  *entities(): Generator<[FacetKind, string, Facets]> {
    for (const [kind, ids] of this.stored) for (const [id, counts] of ids) yield [kind, id, counts];
    for (const [id, counts] of this.creatives) yield ['creative', id, counts];
  }

  /** The entities of one kind, as (id, its counters). */
  ofKind(kind: FacetKind): Iterable<[string, Facets]> {
    return kind === 'creative' ? this.creatives : (this.stored.get(kind) ?? []);
  }

  /**
   * Every stored counter (STORED_KINDS, dates aside) with the distinct-count scalars, in (kind, id, facet, key) order
   * (the facet table's key: appending is cheap): what FacetTotals' eachCounter(true) gives for the same ads. Strings
   * sort by UTF-16 code units here, as `<` compares them.
   */
  eachCounter(fn: (kind: FacetKind, id: string, facet: string, key: string, n: number) => void): void {
    for (const kind of [...this.stored.keys()].filter((k) => STORED_KINDS.has(k)).sort()) {
      const ids = this.stored.get(kind) ?? new Map<string, EntityCounts>();
      for (const id of [...ids.keys()].sort()) ids.get(id)?.eachCounter((facet, key, n) => fn(kind, id, facet, key, n));
    }
  }
}
