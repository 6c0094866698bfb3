import type { DatabaseSync } from 'node:sqlite';
import type {
  Advertiser,
  AdvertiserMatch,
  App,
  AppRow,
  AppStore,
  CountryVolume,
  CreativeFormat,
  CreativeRow,
  Domain,
  DomainRow,
  Platform,
  Webmaster,
  WebmasterRow,
} from '@adintel/contracts';
import { nameSuffixes } from '../text';
import { ROLLUP_INDEXES } from './schema';
import { AdColumnsBuilder, type ColumnSource, encodeAdColumns, writeWordBits } from './ad-columns';

/** Sorted by count desc, key asc. */
export function ranked(counts: Map<string, number>, limit = Infinity): [string, number][] {
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, limit);
}

const bump = (map: Map<string, number>, key: string, by = 1) => map.set(key, (map.get(key) ?? 0) + by);

function countryVolumes(countries: Map<string, number>, total: number): CountryVolume[] {
  return ranked(countries).map(([country, ads]) => ({ country, ads, share: total ? ads / total : 0 }));
}

interface AdRow extends ColumnSource {
  id: string;
  status: string;
  registrable: string;
  host: string;
  countries: string;
  categories: string;
  advertiser_account: string;
}

class AdvertiserAcc {
  platforms = new Set<Platform>();
  accounts = new Set<string>();
  ads = 0;
  active = 0;
  creatives = new Set<string>();
  webmasters = new Set<string>();
  countries = new Map<string, number>();
  categories = new Map<string, number>();
  domains = new Map<string, number>();
  first = '9999-12-31';
  last = '0000-01-01';
  constructor(readonly name: string) {}
}

class WebmasterAcc {
  ads = 0;
  active = 0;
  advertisers = new Set<string>();
  countries = new Map<string, number>();
  categories = new Map<string, number>();
  domains = new Map<string, number>();
  constructor(readonly name: string) {}
}

/** Per creative (there are many): no Sets unless a second advertiser shows up; platforms as a bitmask. */
class CreativeAcc {
  ads = 0;
  firstAdvertiser: string;
  otherAdvertisers: Set<string> | null = null;
  platformBits = 0;
  first = '9999-12-31';
  last = '0000-01-01';
  constructor(
    public lowestAdId: string,
    public title: string,
    readonly format: CreativeFormat,
    advertiser: string,
  ) {
    this.firstAdvertiser = advertiser;
  }

  addAdvertiser(id: string) {
    if (id !== this.firstAdvertiser) (this.otherAdvertisers ??= new Set()).add(id);
  }

  get advertiserCount() {
    return 1 + (this.otherAdvertisers?.size ?? 0);
  }

  get platforms(): Platform[] {
    return PLATFORM_BITS.filter(([, bit]) => (this.platformBits & bit) !== 0).map(([p]) => p);
  }
}

const PLATFORM_BITS: [Platform, number][] = [
  ['facebook', 1],
  ['tiktok', 2],
];

class DomainAcc {
  ads = 0;
  active = 0;
  advertisers = new Map<string, number>();
  hosts = new Map<string, number>();
  countries = new Map<string, number>();
}

class AppAcc {
  ads = 0;
  advertisers = new Map<string, number>();
  countries = new Map<string, number>();
  constructor(readonly info: { id: string; name: string; store: AppStore; bundle_id: string }) {}
}

export interface RollupOptions {
  /**
   * Words in at least `wordBitsMinShare` and at most `wordBitsMaxShare` of the ads get a bitset over the column
   * positions (see writeWordBits). Rarer words: FTS yields their few rows fast; commoner ones: the sort index
   * meets a match every few rows.
   */
  wordBitsMinShare: number;
  wordBitsMaxShare: number;
}

export const DEFAULT_ROLLUP_OPTIONS: RollupOptions = { wordBitsMinShare: 0.02, wordBitsMaxShare: 0.3 };

/**
 * Rebuilds every rollup from the ads table in one pass: entity records (advertisers, webmasters,
 * creatives, domains, apps), the name index, webmaster->advertiser pairs, the ad columns and the word bitsets (ad-columns.ts).
 */
export function buildRollups(db: DatabaseSync, timings: Record<string, number> = {}, options: RollupOptions = DEFAULT_ROLLUP_OPTIONS): void {
  let started = performance.now();
  const lap = (name: string) => {
    timings[name] = (performance.now() - started) / 1000;
    started = performance.now();
  };
  const advertisers = new Map<string, AdvertiserAcc>();
  const webmasters = new Map<string, WebmasterAcc>();
  const creatives = new Map<string, CreativeAcc>();
  const domains = new Map<string, DomainAcc>();
  const apps = new Map<string, AppAcc>();
  const columns = new AdColumnsBuilder();

  const rows = db
    .prepare(
      `SELECT a.rid, a.id, a.activity_days, a.popularity, a.impressions, a.platform, a.advertiser_id, a.webmaster_id, a.app_id, a.creative_id, a.status, a.first_seen,
        a.last_seen, a.registrable, a.host_rev, d.host, a.creative_format, d.countries, d.categories, d.advertiser_name,
        d.advertiser_account, d.webmaster_name, d.app_doc, d.creative_title
       FROM ads a NOT INDEXED JOIN ad_docs d ON d.rid = a.rid ORDER BY a.rid`,
    )
    .iterate() as IterableIterator<AdRow>;

  for (const ad of rows) {
    const countries = ad.countries ? ad.countries.split(',') : [];
    const categories = ad.categories ? ad.categories.split(',') : [];
    const active = ad.status === 'active' ? 1 : 0;

    let adv = advertisers.get(ad.advertiser_id);
    if (!adv) advertisers.set(ad.advertiser_id, (adv = new AdvertiserAcc(ad.advertiser_name)));
    adv.platforms.add(ad.platform);
    adv.accounts.add(`${ad.platform}\u0000${ad.advertiser_account}`);
    adv.ads++;
    adv.active += active;
    adv.creatives.add(ad.creative_id);
    if (ad.webmaster_id) adv.webmasters.add(ad.webmaster_id);
    for (const c of countries) bump(adv.countries, c);
    for (const c of categories) bump(adv.categories, c);
    bump(adv.domains, ad.registrable);
    if (ad.first_seen < adv.first) adv.first = ad.first_seen;
    if (ad.last_seen > adv.last) adv.last = ad.last_seen;

    if (ad.webmaster_id) {
      let wm = webmasters.get(ad.webmaster_id);
      if (!wm) webmasters.set(ad.webmaster_id, (wm = new WebmasterAcc(ad.webmaster_name ?? ad.webmaster_id)));
      wm.ads++;
      wm.active += active;
      wm.advertisers.add(ad.advertiser_id);
      for (const c of countries) bump(wm.countries, c);
      for (const c of categories) bump(wm.categories, c);
      bump(wm.domains, ad.registrable);
    }

    let cr = creatives.get(ad.creative_id);
    if (!cr) creatives.set(ad.creative_id, (cr = new CreativeAcc(ad.id, ad.creative_title, ad.creative_format, ad.advertiser_id)));
    if (ad.id < cr.lowestAdId) {
      cr.lowestAdId = ad.id;
      cr.title = ad.creative_title;
    }
    cr.ads++;
    cr.addAdvertiser(ad.advertiser_id);
    cr.platformBits |= ad.platform === 'facebook' ? 1 : 2;
    if (ad.first_seen < cr.first) cr.first = ad.first_seen;
    if (ad.last_seen > cr.last) cr.last = ad.last_seen;

    let dom = domains.get(ad.registrable);
    if (!dom) domains.set(ad.registrable, (dom = new DomainAcc()));
    dom.ads++;
    dom.active += active;
    bump(dom.advertisers, ad.advertiser_id);
    bump(dom.hosts, ad.host);
    for (const c of countries) bump(dom.countries, c);

    if (ad.app_id && ad.app_doc) {
      let app = apps.get(ad.app_id);
      if (!app) apps.set(ad.app_id, (app = new AppAcc(JSON.parse(ad.app_doc) as AppAcc['info'])));
      app.ads++;
      bump(app.advertisers, ad.advertiser_id);
      for (const c of countries) bump(app.countries, c);
    }

    columns.add(ad, countries, categories, active);
  }

  lap('rollups.read');
  db.exec('BEGIN');
  try {
    db.exec(`DROP INDEX IF EXISTS entities_by_volume; DROP INDEX IF EXISTS name_index_by_entity;
      DELETE FROM entities; DELETE FROM name_index; DELETE FROM webmaster_advertisers; DELETE FROM trend_columns;`);
    const insertEntity = db.prepare('INSERT INTO entities (kind, id, ads_total, row_doc, full_doc) VALUES (?, ?, ?, ?, ?)');
    const insertName = db.prepare('INSERT OR IGNORE INTO name_index (kind, suffix, id) VALUES (?, ?, ?)');
    const insertPair = db.prepare('INSERT INTO webmaster_advertisers (webmaster_id, advertiser_id) VALUES (?, ?)');
    // Collected, then inserted in key order: appending to the b-tree is far cheaper than random inserts.
    const names: [string, string, string][] = [];
    const indexName = (kind: string, id: string, ...entityNames: string[]) => {
      for (const name of entityNames) for (const suffix of nameSuffixes(name)) names.push([kind, suffix, id]);
    };

    const advertiserNames = new Map<string, string>();
    for (const [id, a] of advertisers) {
      advertiserNames.set(id, a.name);
      const row: AdvertiserMatch = {
        id,
        name: a.name,
        platforms: [...a.platforms].sort(),
        ads_total: a.ads,
        active_ads: a.active,
      };
      const full: Advertiser = {
        ...row,
        platform_accounts: [...a.accounts]
          .sort()
          .map((pair) => pair.split('\u0000'))
          .map(([platform, account_id]) => ({ platform: platform as Platform, account_id: account_id ?? '' })),
        creatives: a.creatives.size,
        webmasters: a.webmasters.size,
        countries: countryVolumes(a.countries, a.ads),
        categories: ranked(a.categories).map(([k]) => k),
        landing_domains: ranked(a.domains, 20).map(([k]) => k),
        first_seen_date: a.first,
        last_seen_date: a.last,
      };
      insertEntity.run('advertiser', id, a.ads, JSON.stringify(row), JSON.stringify(full));
      indexName('advertiser', id, a.name);
    }

    for (const [id, w] of webmasters) {
      const countries = countryVolumes(w.countries, w.ads);
      const top = countries[0];
      const row: WebmasterRow = {
        id,
        name: w.name,
        ads_total: w.ads,
        active_ads: w.active,
        advertisers: w.advertisers.size,
        countries,
        dominant_country: top ? top.country : null,
        relevance: top ? top.share : 0,
      };
      const full: Webmaster = {
        ...row,
        categories: ranked(w.categories).map(([category, ads]) => ({ category, ads, share: w.ads ? ads / w.ads : 0 })),
        landing_domains: ranked(w.domains, 20).map(([k]) => k),
      };
      insertEntity.run('webmaster', id, w.ads, JSON.stringify(row), JSON.stringify(full));
      indexName('webmaster', id, w.name);
      for (const advertiserId of w.advertisers) insertPair.run(id, advertiserId);
    }

    for (const [id, c] of creatives) {
      const row: CreativeRow = {
        id,
        title: c.title,
        creative_format: c.format,
        ads_count: c.ads,
        advertisers_count: c.advertiserCount,
        platforms: c.platforms,
        first_seen_date: c.first,
        last_seen_date: c.last,
      };
      const rowJson = JSON.stringify(row);
      insertEntity.run('creative', id, c.ads, rowJson, rowJson);
      indexName('creative', id, c.title);
    }

    for (const [domain, d] of domains) {
      const row: DomainRow = { domain, ads_total: d.ads, active_ads: d.active, advertisers: d.advertisers.size };
      const full: Domain = {
        ...row,
        subdomains: ranked(d.hosts, 50).map(([host, ads]) => ({ host, ads })),
        countries: countryVolumes(d.countries, d.ads),
        top_advertisers: ranked(d.advertisers, 10).map(([id, ads]) => ({ id, name: advertiserNames.get(id) ?? id, ads })),
      };
      insertEntity.run('domain', domain, d.ads, JSON.stringify(row), JSON.stringify(full));
      indexName('domain', domain, domain);
    }

    for (const [id, a] of apps) {
      const row: AppRow = { ...a.info, id, ads_total: a.ads, advertisers: a.advertisers.size };
      const full: App = {
        ...row,
        advertiser_list: ranked(a.advertisers, 20).map(([aid, ads]) => ({ id: aid, name: advertiserNames.get(aid) ?? aid, ads })),
        countries: countryVolumes(a.countries, a.ads),
      };
      insertEntity.run('app', id, a.ads, JSON.stringify(row), JSON.stringify(full));
      indexName('app', id, a.info.name, a.info.bundle_id);
    }

    lap('rollups.entities');
    names.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
    for (const [kind, suffix, id] of names) insertName.run(kind, suffix, id);
    lap('rollups.names');
    columns.retitleCreatives((id) => creatives.get(id)?.title);
    columns.rankIds(db.prepare('SELECT rid FROM ads ORDER BY id').iterate() as IterableIterator<{ rid: number }>);
    const insertColumn = db.prepare('INSERT INTO trend_columns (name, data) VALUES (?, ?)');
    const built = columns.build();
    for (const [name, data] of encodeAdColumns(built)) insertColumn.run(name, data);
    lap('rollups.columns');
    writeWordBits(db, built, insertColumn, options);
    lap('rollups.words');
    db.exec(ROLLUP_INDEXES);
    db.exec('COMMIT');
    lap('rollups.indexes');
  } catch (error) {
    db.exec('ROLLBACK');
    throw new Error('building the rollups failed', { cause: error });
  }
}

