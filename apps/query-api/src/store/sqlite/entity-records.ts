import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { nameSuffixes } from '../text';
import {
  type CreativeAd,
  creativeFacetsOf,
  DISTINCT_FACETS,
  distinctFacet,
  type EntityKind,
  type FacetKind,
  type Facets,
  type FacetTotals,
  type LoadTotals,
  renderCatalog,
  renderEntity,
  type RenderedEntity,
} from './entity-facets';

/** Rendered in this order: domain and app records name their advertisers, so advertisers come first. */
export const ENTITY_KINDS: readonly EntityKind[] = ['advertiser', 'webmaster', 'creative', 'domain', 'app'];

/**
 * The entity tables of the SQLite store (entity_facets, entities, name_index, the catalog in meta): written in full
 * after a load, or changed by a live batch for the entities it touched. Runs inside the caller's transaction.
 */
export class EntityRecords {
  private readonly s: ReturnType<typeof prepare>;

  constructor(private readonly db: DatabaseSync) {
    this.s = prepare(db);
  }

  /** A full load: every counter, every record, the name index and the catalog, replacing what was there. */
  writeAll(totals: LoadTotals, creativeTitles: Map<string, string>): Map<EntityKind, Map<string, RenderedEntity>> {
    this.db.exec(`DROP INDEX IF EXISTS entities_by_volume; DROP INDEX IF EXISTS name_index_by_entity;
      DELETE FROM entities; DELETE FROM name_index; DELETE FROM entity_facets;`);
    const facets = new RowInserter(this.db, 'INSERT INTO entity_facets (kind, id, facet, key, n) VALUES', 5);
    totals.stored.eachCounter(true, (kind, id, facet, key, n) => facets.add(kind, id, facet, key, n));
    facets.flush();
    const entities = new RowInserter(this.db, 'INSERT OR REPLACE INTO entities (kind, id, ads_total, row_doc, full_doc) VALUES', 5);
    const rendered = new Map<EntityKind, Map<string, RenderedEntity>>(ENTITY_KINDS.map((k) => [k, new Map()]));
    const byKind = new Map<FacetKind, [string, Facets][]>();
    for (const [kind, id, facets] of totals.entities()) {
      const list = byKind.get(kind) ?? [];
      list.push([id, facets]);
      byKind.set(kind, list);
    }
    const advertisers = rendered.get('advertiser') as Map<string, RenderedEntity>;
    const nameOf = (_kind: 'advertiser', id: string) => (advertisers.get(id)?.row as { name?: string } | undefined)?.name ?? id;
    // Collected, then inserted in key order: appending to the b-tree is far cheaper than random inserts.
    const names: [string, string, string][] = [];
    for (const kind of ENTITY_KINDS) {
      const done = rendered.get(kind) as Map<string, RenderedEntity>;
      for (const [id, facets] of byKind.get(kind) ?? []) {
        const entity = renderEntity(kind, id, facets, nameOf, () => creativeTitles.get(id) ?? '');
        if (!entity) continue;
        done.set(id, entity);
        entities.add(kind, id, entity.adsTotal, JSON.stringify(entity.row), JSON.stringify(entity.full));
        for (const suffix of nameSuffixes(...entity.names)) names.push([kind, suffix, id]);
      }
    }
    entities.flush();
    names.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
    const nameRows = new RowInserter(this.db, 'INSERT OR IGNORE INTO name_index (kind, suffix, id) VALUES', 3);
    for (const [kind, suffix, id] of names) nameRows.add(kind, suffix, id);
    nameRows.flush();
    const store = byKind.get('store')?.[0]?.[1];
    if (store) this.writeCatalog(store);
    return rendered;
  }

  /**
   * A live batch: adds its counter changes, then renders again the records of the entities they touched (deleting
   * those no ad counts for any more) and the catalog. Returns the records rendered, by kind.
   */
  applyChanges(changes: FacetTotals): Map<EntityKind, Map<string, RenderedEntity | null>> {
    const touched = new Map<EntityKind, Set<string>>(ENTITY_KINDS.map((k) => [k, new Set()]));
    // Creatives keep no counters (STORED_KINDS): one whose ads changed is rendered again from its ads.
    touched.set('creative', new Set(changes.changed('creative')));
    const distinct = new Map<string, { kind: FacetKind; id: string; facet: string; n: number }>();
    const add = (kind: FacetKind, id: string, facet: string, key: string, n: number): number => {
      const { n: now } = this.s.upsertFacet.get(kind, id, facet, key, n) as { n: number };
      if (now === 0) this.s.deleteFacet.run(kind, id, facet, key);
      return now;
    };
    const all = [...changes.counters(false)];
    // Most re-sightings move only an ad's last (or first) sighting: an entity whose changes are all such dates shows
    // the same record unless its first or last date moved, so it is rendered again only then (a render reads every
    // counter of the entity: a top advertiser's thousands). Its date range is read before and compared after.
    const dateRange = (kind: FacetKind, id: string) =>
      `${(this.s.facetMin.get(kind, id, 'first') as { key: string } | undefined)?.key ?? ''}\u0000${(this.s.facetMax.get(kind, id, 'last') as { key: string } | undefined)?.key ?? ''}`;
    const entityKey = (kind: FacetKind, id: string) => `${kind}\u0000${id}`;
    // Per entity: whether its changes are all dates (then the range decides), or dates and its active count (then
    // the stored record is patched: see patched()); anything else renders it again from every counter.
    const datesOnly = new Map<string, boolean>();
    const patchable = new Map<string, boolean>();
    for (const change of all) {
      const key = entityKey(change.kind, change.id);
      const isDate = change.facet === 'first' || change.facet === 'last';
      datesOnly.set(key, (datesOnly.get(key) ?? true) && isDate);
      patchable.set(key, (patchable.get(key) ?? true) && (isDate || change.facet === '#active'));
    }
    const rangeBefore = new Map<string, string>();
    for (const [key, only] of datesOnly) {
      const [kind = '', id = ''] = key.split('\u0000');
      if (only) rangeBefore.set(key, dateRange(kind as FacetKind, id));
    }
    // Domain and app records show their advertisers' names: when a batch renames an advertiser (advertisers are
    // rendered first), every touched domain and app is rendered again, dates or not.
    let renamed = false;
    for (const change of all) {
      const now = add(change.kind, change.id, change.facet, change.key, change.n);
      if (change.kind !== 'store') touched.get(change.kind)?.add(change.id);
      // A key appearing (the counter is the change itself) or disappearing moves the number of distinct keys.
      const step = now === 0 ? -1 : now === change.n ? 1 : 0;
      if (step && DISTINCT_FACETS.has(change.facet)) {
        const name = distinctFacet(change.facet);
        const at = `${change.kind}\u0000${change.id}\u0000${name}`;
        const entry = distinct.get(at) ?? { kind: change.kind, id: change.id, facet: name, n: 0 };
        entry.n += step;
        distinct.set(at, entry);
      }
    }
    for (const d of distinct.values()) if (d.n) add(d.kind, d.id, d.facet, '', d.n);

    const rendered = new Map<EntityKind, Map<string, RenderedEntity | null>>();
    const nameOf = (_kind: 'advertiser', id: string) => {
      const row = this.s.entityRow.get('advertiser', id) as { doc: string } | undefined;
      return row ? ((JSON.parse(row.doc) as { name: string }).name ?? id) : id;
    };
    for (const kind of ENTITY_KINDS) {
      const done = new Map<string, RenderedEntity | null>();
      rendered.set(kind, done);
      for (const id of touched.get(kind) ?? []) {
        const key = entityKey(kind, id);
        const listsNames: boolean = renamed && (kind === 'domain' || kind === 'app');
        const range = rangeBefore.get(key);
        if (range !== undefined && !listsNames && range === dateRange(kind, id)) continue;
        // Creatives keep no counters: rendered from their ads (renderCreative), never patched.
        const patch: RenderedEntity | null = kind !== 'creative' && patchable.get(key) && !listsNames ? this.patched(kind, id) : null;
        const entity: RenderedEntity | null =
          patch ?? (kind === 'creative' ? this.renderCreative(id) : renderEntity(kind, id, this.facetsOf(kind, id), nameOf, () => ''));
        done.set(id, entity);
        if (!entity) {
          this.s.deleteNames.run(kind, id);
          this.s.deleteEntity.run(kind, id);
          continue;
        }
        // Written only when what it shows changed: most re-sightings move counters no record shows (a date inside
        // the range, an impression count), and rewriting a top advertiser's record is kilobytes of log per batch.
        const row = JSON.stringify(entity.row);
        const full = JSON.stringify(entity.full);
        const stored = this.s.entityDocs.get(kind, id) as { ads_total: number; row_doc: string; full_doc: string } | undefined;
        if (stored?.ads_total === entity.adsTotal && stored.row_doc === row && stored.full_doc === full) continue;
        if (kind === 'advertiser' && !renamed) renamed = !stored || (JSON.parse(stored.row_doc) as { name?: string }).name !== (entity.row as { name?: string }).name;
        this.s.insertEntity.run(kind, id, entity.adsTotal, row, full);
        // A patched record kept its names.
        if (!patch) this.writeNames(kind, id, nameSuffixes(...entity.names));
      }
    }
    this.writeCatalog(this.facetsOf('store', ''));
    return rendered;
  }

  /**
   * The stored record with what a change of dates and active count alone moves set again (active_ads; an advertiser's
   * first and last seen dates), read from three counters instead of every counter of the entity; the rest of the record (lists,
   * names, totals) follows counters that did not change. Null when there is no stored record (render it whole).
   */
  private patched(kind: EntityKind, id: string): RenderedEntity | null {
    const stored = this.s.entityDocs.get(kind, id) as { ads_total: number; row_doc: string; full_doc: string } | undefined;
    if (!stored) return null;
    const row = JSON.parse(stored.row_doc) as Record<string, unknown>;
    const full = JSON.parse(stored.full_doc) as Record<string, unknown>;
    const f = this.facetsOf(kind, id);
    const set = (field: string, value: unknown) => {
      if (field in row) row[field] = value;
      if (field in full) full[field] = value;
    };
    set('active_ads', f.scalar('#active'));
    // Of the kinds with counters, only advertisers count first and last seen dates (STORED_KINDS, decisions/0014).
    if (kind === 'advertiser') {
      set('first_seen_date', f.min('first') ?? '');
      set('last_seen_date', f.max('last') ?? '');
    }
    return { adsTotal: stored.ads_total, row, full, names: [] };
  }

  /** The entity's name index rows become `suffixes`, touched only when they differ. */
  private writeNames(kind: EntityKind, id: string, suffixes: Iterable<string>): void {
    const wanted = new Set(suffixes);
    const held = (this.s.entityNames.all(kind, id) as { suffix: string }[]).map((r) => r.suffix);
    if (held.length === wanted.size && held.every((suffix) => wanted.has(suffix))) return;
    this.s.deleteNames.run(kind, id);
    for (const suffix of wanted) this.s.insertName.run(kind, suffix, id);
  }

  /** The catalog and the value counts, each written only when it changed (most batches move neither). */
  private writeCatalog(store: Facets): void {
    const { catalog, valueCounts } = renderCatalog(store);
    for (const [key, value] of [
      ['catalog', JSON.stringify(catalog)],
      ['value_counts', JSON.stringify(valueCounts)],
    ] as const) {
      if ((this.s.getMeta.get(key) as { value: string } | undefined)?.value !== value) this.s.setMeta.run(key, value);
    }
  }

  /**
   * A creative's record from its ads (ads_by_creative is on (creative_id, id): in id order, so the first row's title is
   * the one the port's rule names); null when it has none left.
   */
  private renderCreative(id: string): RenderedEntity | null {
    const ads = this.s.creativeAds.all(id) as (CreativeAd & { title: string })[];
    const title = ads[0]?.title ?? '';
    return renderEntity('creative', id, creativeFacetsOf(ads), () => id, () => title);
  }

  /** The counters of one entity, read from the facet table. */
  private facetsOf(kind: FacetKind, id: string): Facets {
    const s = this.s;
    return {
      entries: (facet) => (s.facetEntries.all(kind, id, facet) as { key: string; n: number }[]).map((r) => [r.key, r.n]),
      scalar: (name) => (s.facetValue.get(kind, id, name, '') as { n: number } | undefined)?.n ?? 0,
      min: (facet) => (s.facetMin.get(kind, id, facet) as { key: string } | undefined)?.key ?? null,
      max: (facet) => (s.facetMax.get(kind, id, facet) as { key: string } | undefined)?.key ?? null,
    };
  }
}

/**
 * Inserts rows many to a statement: a full load writes about a million rows, and one call into SQLite per row costs
 * more than binding its values.
 */
class RowInserter {
  private static readonly ROWS = 100;
  private readonly full: StatementSync;
  private readonly values: (string | number)[] = [];

  constructor(
    private readonly db: DatabaseSync,
    private readonly insert: string,
    private readonly width: 3 | 5,
  ) {
    this.full = db.prepare(this.sql(RowInserter.ROWS));
  }

  /** One row, its values in column order (fixed arity, no rest array: called once per counter). */
  add(a: string | number, b: string | number, c: string | number, d?: string | number, e?: string | number): void {
    const values = this.values;
    values.push(a, b, c);
    if (this.width > 3) values.push(d ?? '', e ?? '');
    if (values.length === RowInserter.ROWS * this.width) {
      this.full.run(...values);
      values.length = 0;
    }
  }

  flush(): void {
    if (this.values.length) this.db.prepare(this.sql(this.values.length / this.width)).run(...this.values);
    this.values.length = 0;
  }

  private sql(rows: number): string {
    const row = `(${Array.from({ length: this.width }, () => '?').join(', ')})`;
    return `${this.insert} ${Array.from({ length: rows }, () => row).join(', ')}`;
  }
}

function prepare(db: DatabaseSync) {
  const st = (sql: string): StatementSync => db.prepare(sql);
  return {
    upsertFacet: st(`INSERT INTO entity_facets (kind, id, facet, key, n) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (kind, id, facet, key) DO UPDATE SET n = n + excluded.n RETURNING n`),
    deleteFacet: st('DELETE FROM entity_facets WHERE kind = ? AND id = ? AND facet = ? AND key = ?'),
    facetEntries: st('SELECT key, n FROM entity_facets WHERE kind = ? AND id = ? AND facet = ?'),
    facetValue: st('SELECT n FROM entity_facets WHERE kind = ? AND id = ? AND facet = ? AND key = ?'),
    facetMin: st('SELECT key FROM entity_facets WHERE kind = ? AND id = ? AND facet = ? ORDER BY key ASC LIMIT 1'),
    facetMax: st('SELECT key FROM entity_facets WHERE kind = ? AND id = ? AND facet = ? ORDER BY key DESC LIMIT 1'),
    insertEntity: st('INSERT OR REPLACE INTO entities (kind, id, ads_total, row_doc, full_doc) VALUES (?, ?, ?, ?, ?)'),
    deleteEntity: st('DELETE FROM entities WHERE kind = ? AND id = ?'),
    entityRow: st('SELECT row_doc AS doc FROM entities WHERE kind = ? AND id = ?'),
    entityDocs: st('SELECT ads_total, row_doc, full_doc FROM entities WHERE kind = ? AND id = ?'),
    entityNames: st('SELECT suffix FROM name_index WHERE kind = ? AND id = ?'),
    insertName: st('INSERT OR IGNORE INTO name_index (kind, suffix, id) VALUES (?, ?, ?)'),
    deleteNames: st('DELETE FROM name_index WHERE kind = ? AND id = ?'),
    creativeAds: st(`SELECT a.creative_format, a.platform, a.advertiser_id, a.status, a.first_seen, a.last_seen, d.creative_title AS title
      FROM ads a JOIN ad_docs d ON d.rid = a.rid WHERE a.creative_id = ? ORDER BY a.id`),
    getMeta: st('SELECT value FROM meta WHERE key = ?'),
    setMeta: st('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)'),
  };
}
