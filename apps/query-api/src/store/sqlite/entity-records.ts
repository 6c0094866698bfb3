import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { CatalogData } from '../ad-store.port';
import { nameSuffixes } from '../text';
import {
  type CreativeAd,
  creativeFacetsOf,
  DISTINCT_FACETS,
  DATED_KINDS,
  distinctFacet,
  type EntityKind,
  extremeAfter,
  type FacetDelta,
  type FacetKind,
  type Facets,
  type FacetTotals,
  isDateFacet,
  type LoadTotals,
  renderCatalog,
  renderEntity,
  type RenderedEntity,
  ranked,
  shownHead,
} from './entity-facets';
import { type EntityMoving, movingShown, sameEntityMoving, SHOWN_AS } from './entity-moving';

/** Rendered in this order: domain and app records name their advertisers, so advertisers come first. */
export const ENTITY_KINDS: readonly EntityKind[] = ['advertiser', 'webmaster', 'creative', 'domain', 'app'];

/**
 * The entity tables of the SQLite store (entity_facets, entities, name_index, the catalog in meta): written in full
 * after a load, or changed by a live batch for the entities it touched. Runs inside the caller's transaction.
 */
export class EntityRecords {
  private readonly s: ReturnType<typeof prepare>;

  private readonly upserts: FacetUpserts;

  constructor(private readonly db: DatabaseSync) {
    this.s = prepare(db);
    this.upserts = new FacetUpserts(db, this.s.deleteFacet);
  }

  /**
   * A full load: every counter, every record, the name index and the catalog, replacing what was there.
   * `creativeTitle`: a creative's title (its ad with the lowest id: the port's rule).
   */
  writeAll(totals: LoadTotals, creativeTitle: (id: string) => string): Map<EntityKind, Map<string, RenderedEntity>> {
    this.db.exec(`DROP INDEX IF EXISTS entities_by_volume; DROP INDEX IF EXISTS name_index_by_entity;
      DELETE FROM entities; DELETE FROM entity_moving; DELETE FROM name_index; DELETE FROM entity_facets;`);
    const facets = new RowInserter(this.db, 'INSERT INTO entity_facets (kind, id, facet, key, n) VALUES', 5);
    totals.eachCounter((kind, id, facet, key, n) => facets.add(kind, id, facet, key, n));
    facets.flush();
    const entities = new RowInserter(this.db, 'INSERT OR REPLACE INTO entities (kind, id, ads_total, row_doc, full_doc) VALUES', 5);
    const moving = new RowInserter(this.db, 'INSERT OR REPLACE INTO entity_moving (kind, id, active_ads, first_seen, last_seen) VALUES', 5);
    const rendered = new Map<EntityKind, Map<string, RenderedEntity>>(ENTITY_KINDS.map((k) => [k, new Map()]));
    const advertisers = rendered.get('advertiser') as Map<string, RenderedEntity>;
    const nameOf = (_kind: 'advertiser', id: string) => (advertisers.get(id)?.row as { name?: string } | undefined)?.name ?? id;
    // Collected, then inserted in key order: appending to the b-tree is far cheaper than random inserts.
    const names: [string, string, string][] = [];
    for (const kind of ENTITY_KINDS) {
      const done = rendered.get(kind) as Map<string, RenderedEntity>;
      for (const [id, facets] of totals.ofKind(kind)) {
        const entity = renderEntity(kind, id, facets, nameOf, () => creativeTitle(id));
        if (!entity) continue;
        done.set(id, entity);
        entities.add(kind, id, entity.adsTotal, JSON.stringify(entity.row), JSON.stringify(entity.full));
        const shown = movingShown(kind, entity.full);
        moving.add(kind, id, shown.active_ads, shown.first_seen, shown.last_seen);
        for (const suffix of nameSuffixes(...entity.names)) names.push([kind, suffix, id]);
      }
    }
    entities.flush();
    moving.flush();
    names.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
    const nameRows = new RowInserter(this.db, 'INSERT OR IGNORE INTO name_index (kind, suffix, id) VALUES', 3);
    for (const [kind, suffix, id] of names) nameRows.add(kind, suffix, id);
    nameRows.flush();
    for (const [, store] of totals.ofKind('store')) this.writeCatalog(store);
    return rendered;
  }

  /**
   * A live batch: adds its counter changes (dates aside: they are not stored), then brings up to date the records of
   * the entities they touched (deleting those no ad counts for any more) and the catalog. An entity whose changes are
   * only what a re-sighting moves (its dates, its active count) has those set in its `entity_moving` row, or left as
   * they are when none moved: its records stand (entity-moving.ts). Any other change renders it again (from its
   * counters; a creative from its ads). Returns the records rendered or deleted, by kind (an entity whose records stand
   * is not among them: what it is named by did not change).
   */
  applyChanges(changes: FacetTotals): Map<EntityKind, Map<string, RenderedEntity | null>> {
    const distinct = new Map<string, FacetDelta>();
    // Each entity's active count after the batch, as the upsert returned it (a patch needs no read of it).
    const activeNow = new Map<string, number>();
    const all = [...changes.counters(false)];
    const counts = this.upserts.add(all);
    for (const [i, change] of all.entries()) {
      const now = counts[i] ?? 0;
      if (change.facet === '#active') activeNow.set(entityKey(change.kind, change.id), now);
      // A key appearing (the counter is the change itself) or disappearing moves the number of distinct keys.
      const step = now === 0 ? -1 : now === change.n ? 1 : 0;
      if (step && DISTINCT_FACETS.has(change.facet)) {
        const name = distinctFacet(change.facet);
        const at = `${change.kind}\u0000${change.id}\u0000${name}`;
        const entry = distinct.get(at) ?? { kind: change.kind, id: change.id, facet: name, key: '', n: 0 };
        entry.n += step;
        distinct.set(at, entry);
      }
    }
    this.upserts.add([...distinct.values()].filter((d) => d.n !== 0));

    const rendered = new Map<EntityKind, Map<string, RenderedEntity | null>>();
    // Asked only by domain and app records, rendered after every advertiser of the batch: a name read stays right for
    // the rest of the batch, and the top advertisers of a batch's domains are mostly the same few.
    const names = new Map<string, string>();
    const nameOf = (_kind: 'advertiser', id: string) => {
      let name = names.get(id);
      if (name === undefined) {
        const row = this.s.entityRow.get('advertiser', id) as { doc: string } | undefined;
        name = row ? ((JSON.parse(row.doc) as { name: string }).name ?? id) : id;
        names.set(id, name);
      }
      return name;
    };
    // Domain and app records show their advertisers' names: when a batch renames an advertiser (advertisers are
    // rendered first), every touched domain and app is rendered again, whatever moved.
    let renamed = false;
    for (const kind of ENTITY_KINDS) {
      const done = new Map<string, RenderedEntity | null>();
      rendered.set(kind, done);
      for (const id of changes.changed(kind)) {
        const moving = this.s.movingOf.get(kind, id) as EntityMoving | undefined;
        const listsNames = renamed && (kind === 'domain' || kind === 'app');
        if (moving && !listsNames && changes.facetsOf(kind, id).every((facet) => isDateFacet(facet) || facet === '#active')) {
          const patch = this.patched(kind, id, moving, changes, activeNow.get(entityKey(kind, id)));
          if (patch === 'same') continue;
          if (patch !== 'render') {
            this.setMoving(kind, id, patch);
            continue;
          }
        }
        const stored = this.s.entityDocs.get(kind, id) as StoredRecord | undefined;
        const was = moving && kind === 'advertiser' ? { first: moving.first_seen, last: moving.last_seen } : null;
        const entity: RenderedEntity | null =
          kind === 'creative'
            ? this.renderCreative(id)
            : renderEntity(kind, id, this.facetsOf(kind, id, () => this.datesAfter(kind, id, was, changes), stored && { stored, changes }), nameOf, () => '');
        done.set(id, entity);
        if (!entity) {
          this.s.deleteNames.run(kind, id);
          this.s.deleteEntity.run(kind, id);
          this.s.deleteMoving.run(kind, id);
          continue;
        }
        const shown = movingShown(kind, entity.full);
        if (!moving || !sameEntityMoving(moving, shown)) this.setMoving(kind, id, shown);
        // Written only when what it shows changed (a rendered record often shows what it showed: an impression count
        // moved, a country's share stayed), and rewriting a top advertiser's record is kilobytes of log per batch.
        const row = JSON.stringify(entity.row);
        const full = JSON.stringify(entity.full);
        if (stored?.ads_total === entity.adsTotal && stored.row_doc === row && stored.full_doc === full) continue;
        if (kind === 'advertiser' && !renamed) renamed = !stored || (JSON.parse(stored.row_doc) as { name?: string }).name !== (entity.row as { name?: string }).name;
        if (stored?.ads_total === entity.adsTotal) this.s.updateDocs.run(row, full, kind, id);
        else this.s.insertEntity.run(kind, id, entity.adsTotal, row, full);
        this.writeNames(kind, id, nameSuffixes(...entity.names));
      }
    }
    this.updateCatalog(changes);
    return rendered;
  }

  /**
   * The entity's moving values after the batch (`was`: before it): its active count as the upsert returned it, the
   * first and last seen dates of advertisers and creatives by arithmetic (datesAfter). 'same' when none moved (nothing
   * to write); 'render' for a creative whose first or last date the batch took away (its ads tell the new one).
   */
  private patched(kind: EntityKind, id: string, was: EntityMoving, changes: FacetTotals, active: number | undefined): EntityMoving | 'same' | 'render' {
    const now = { ...was };
    if (active !== undefined && was.active_ads !== null) now.active_ads = active;
    if (DATED_KINDS.has(kind)) {
      const shown = { first: was.first_seen, last: was.last_seen };
      const dates = kind === 'creative' ? movedDates(shown, changes, kind, id) : this.datesAfter(kind, id, shown, changes);
      if (!dates) return 'render';
      now.first_seen = dates.first;
      now.last_seen = dates.last;
    }
    return sameEntityMoving(now, was) ? 'same' : now;
  }

  private setMoving(kind: EntityKind, id: string, moving: EntityMoving): void {
    this.s.setMoving.run(kind, id, moving.active_ads, moving.first_seen, moving.last_seen);
  }

  /**
   * The first and last seen dates of an advertiser or the catalog after the batch (`was`: before it, from its record):
   * by arithmetic on the batch's date changes, or, when an ad holding one left it or moved off it with nothing added
   * past it, from the ads (rare: an ad re-keyed away, a sighting older than the stored one). The ads are written by
   * now, so the queries see the batch. Webmasters, domains and apps show no dates ('').
   */
  private datesAfter(kind: FacetKind, id: string, was: ShownDates | null, changes: FacetTotals): { first: string; last: string } {
    if (kind !== 'advertiser' && kind !== 'store') return { first: '', last: '' };
    const s = this.s;
    const on = kind === 'advertiser' ? [id] : [];
    const moved = movedExtremes(was, changes, kind, id);
    const day = (row: unknown) => (row as { d: string | null } | undefined)?.d ?? '';
    // The earliest first-seen date is an index seek (ads_by_advertiser, ads_by_date).
    const first = moved.first ?? day((kind === 'advertiser' ? s.advertiserFirst : s.storeFirst).get(...on));
    // The latest last-seen date has no index of its own: first ask whether another ad still holds the stored one (it
    // usually does: many ads share a day), and only then scan for the maximum.
    let last = moved.last;
    if (last === null) {
      const held = was?.last && (kind === 'advertiser' ? s.advertiserHolds : s.storeHolds).get(...on, was.last) !== undefined;
      last = held && was?.last ? was.last : day((kind === 'advertiser' ? s.advertiserLast : s.storeLast).get(...on));
    }
    return { first, last };
  }

  /** The entity's name index rows become `suffixes`, touched only when they differ. */
  private writeNames(kind: EntityKind, id: string, suffixes: Iterable<string>): void {
    const wanted = new Set(suffixes);
    const held = (this.s.entityNames.all(kind, id) as { suffix: string }[]).map((r) => r.suffix);
    if (held.length === wanted.size && held.every((suffix) => wanted.has(suffix))) return;
    this.s.deleteNames.run(kind, id);
    for (const suffix of wanted) this.s.insertName.run(kind, suffix, id);
  }

  /**
   * The catalog after a batch: left as it is when the store-wide counters did not move; its first and last seen dates
   * patched when only dates moved (most re-sightings); rendered from the counters otherwise.
   */
  private updateCatalog(changes: FacetTotals): void {
    const moved = changes.facetsOf('store', '');
    if (!moved.length) return;
    const stored = this.s.getMeta.get('catalog') as { value: string } | undefined;
    const catalog = stored ? (JSON.parse(stored.value) as CatalogData) : null;
    const was = catalog ? { first: catalog.firstSeenDate, last: catalog.lastSeenDate } : null;
    const dates = () => this.datesAfter('store', '', was, changes);
    if (!catalog || !moved.every(isDateFacet)) {
      this.writeCatalog(this.facetsOf('store', '', dates));
      return;
    }
    const { first, last } = dates();
    if ((first || null) === catalog.firstSeenDate && (last || null) === catalog.lastSeenDate) return;
    this.s.setMeta.run('catalog', JSON.stringify({ ...catalog, firstSeenDate: first || null, lastSeenDate: last || null }));
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

  /**
   * The counters of one entity, read from the facet table; its first and last seen dates (the only min and max a
   * record shows) from `dates`, asked once and only when the record shows them. Date rows a store written before
   * decisions/0016 still holds are never read: live batches no longer keep them.
   *
   * With the entity's stored record and the batch's changes (`before`), the head of a long list (SHOWN_HEADS) is ranked
   * from the keys the record shows and the keys the batch changed, not from every key, when the batch took nothing
   * from a shown key: every other key ranked below the head before the batch and did not move, while the head's keys
   * only gained, so none of them can rise into it. The stored record always shows the head of the counters as they are
   * (rendered in full by a load, rendered again by every batch that changed the facet).
   */
  private facetsOf(kind: FacetKind, id: string, dates: () => { first: string; last: string }, before?: { stored: StoredRecord; changes: FacetTotals }): Facets {
    const s = this.s;
    let known: { first: string; last: string } | null = null;
    const date = (facet: string, which: 'first' | 'last') => (facet === which ? (known ??= dates())[which] || null : null);
    const counts = (rows: unknown[]) => (rows as { key: string; n: number }[]).map((r): [string, number] => [r.key, r.n]);
    const entries = (facet: string) => counts(s.facetEntries.all(kind, id, facet));
    let full: unknown;
    return {
      entries,
      scalar: (name) => (s.facetValue.get(kind, id, name, '') as { n: number } | undefined)?.n ?? 0,
      min: (facet) => date(facet, 'first'),
      max: (facet) => date(facet, 'last'),
      top: (facet, limit) => {
        const head = before && shownHead(kind, facet);
        if (before && head?.limit === limit) {
          const shown = head.keys((full ??= JSON.parse(before.stored.full_doc)));
          const changed = before.changes.entries(kind, id, facet);
          if (!changed.some(([key, n]) => n < 0 && shown.includes(key))) {
            const keys = JSON.stringify([...shown, ...changed.map(([key]) => key)]);
            return ranked(counts(s.facetCounts.all(kind, id, facet, keys)), limit);
          }
        }
        return ranked(entries(facet), limit);
      },
    };
  }
}

/** An entity's stored record (the entities table). */
interface StoredRecord {
  ads_total: number;
  row_doc: string;
  full_doc: string;
}

/** The first and last seen dates a record shows (null or '': none). */
interface ShownDates {
  first: string | null;
  last: string | null;
}

const entityKey = (kind: FacetKind, id: string) => `${kind}\u0000${id}`;

/** The entity's first and last seen dates after the batch by arithmetic (extremeAfter); null for one it cannot tell. */
function movedExtremes(was: ShownDates | null, changes: FacetTotals, kind: FacetKind, id: string): ShownDates {
  return {
    first: extremeAfter(was?.first ?? null, changes.entries(kind, id, 'first'), 'min'),
    last: extremeAfter(was?.last ?? null, changes.entries(kind, id, 'last'), 'max'),
  };
}

/** Both dates by arithmetic, or null when either needs the ads. */
function movedDates(was: ShownDates, changes: FacetTotals, kind: FacetKind, id: string): { first: string; last: string } | null {
  const { first, last } = movedExtremes(was, changes, kind, id);
  return first === null || last === null ? null : { first, last };
}

/**
 * Adds a batch's counter changes to entity_facets many to a statement: a batch's new ads change about 30 counters each,
 * and a statement per counter spends more on the call into SQLite than on the b-tree. Counters back at 0 are deleted.
 */
class FacetUpserts {
  private static readonly ROWS = 64;
  /** By number of rows: the full statement, and the shorter ones a batch's last rows need. */
  private readonly statements = new Map<number, StatementSync>();

  constructor(
    private readonly db: DatabaseSync,
    private readonly deleteFacet: StatementSync,
  ) {}

  /** Each counter's value after its change, in the order given. */
  add(changes: readonly FacetDelta[]): number[] {
    const now: number[] = [];
    for (let at = 0; at < changes.length; at += FacetUpserts.ROWS) {
      const part = changes.slice(at, at + FacetUpserts.ROWS);
      const values: (string | number)[] = [];
      for (const c of part) values.push(c.kind, c.id, c.facet, c.key, c.n);
      const rows = this.statement(part.length).all(...values) as unknown as [string, string, string, string, number][];
      // RETURNING promises no order: SQLite gives the rows' own, checked here, and matched by key if it ever differs.
      const inOrder = rows.length === part.length && part.every((c, i) => sameKey(c, rows[i]));
      const byKey = inOrder ? null : new Map(rows.map((r) => [r.slice(0, 4).join('\u0000'), r[4]]));
      for (const [i, c] of part.entries()) {
        const n = byKey ? (byKey.get([c.kind, c.id, c.facet, c.key].join('\u0000')) ?? 0) : (rows[i]?.[4] ?? 0);
        if (n === 0) this.deleteFacet.run(c.kind, c.id, c.facet, c.key);
        now.push(n);
      }
    }
    return now;
  }

  private statement(rows: number): StatementSync {
    let statement = this.statements.get(rows);
    if (!statement) {
      statement = this.db.prepare(`INSERT INTO entity_facets (kind, id, facet, key, n) VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?)').join(', ')}
        ON CONFLICT (kind, id, facet, key) DO UPDATE SET n = n + excluded.n RETURNING kind, id, facet, key, n`);
      statement.setReturnArrays(true);
      this.statements.set(rows, statement);
    }
    return statement;
  }
}

const sameKey = (c: FacetDelta, r: [string, string, string, string, number] | undefined) =>
  r !== undefined && r[0] === c.kind && r[1] === c.id && r[2] === c.facet && r[3] === c.key;

/**
 * Inserts rows many to a statement: a full load writes about a million rows, and one call into SQLite per row costs
 * more than binding its values.
 */
class RowInserter {
  private static readonly ROWS = 100;
  private readonly full: StatementSync;
  private readonly values: (string | number | null)[] = [];

  constructor(
    private readonly db: DatabaseSync,
    private readonly insert: string,
    private readonly width: 3 | 5,
  ) {
    this.full = db.prepare(this.sql(RowInserter.ROWS));
  }

  /** One row, its values in column order (fixed arity, no rest array: called once per counter). */
  add(a: string | number, b: string | number, c: string | number | null, d?: string | number | null, e?: string | number | null): void {
    const values = this.values;
    values.push(a, b, c);
    if (this.width > 3) values.push(d ?? null, e ?? null);
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
    deleteFacet: st('DELETE FROM entity_facets WHERE kind = ? AND id = ? AND facet = ? AND key = ?'),
    facetEntries: st('SELECT key, n FROM entity_facets WHERE kind = ? AND id = ? AND facet = ?'),
    facetValue: st('SELECT n FROM entity_facets WHERE kind = ? AND id = ? AND facet = ? AND key = ?'),
    // The counters of some keys of a facet (a JSON array of them): a ranked list's head and what a batch changed.
    facetCounts: st('SELECT key, n FROM entity_facets WHERE kind = ? AND id = ? AND facet = ? AND key IN (SELECT value FROM json_each(?))'),
    // An advertiser's and the store's dates, from the ads, when arithmetic cannot tell them (datesAfter).
    advertiserFirst: st('SELECT min(first_seen) AS d FROM ads WHERE advertiser_id = ?'),
    advertiserHolds: st('SELECT 1 AS y FROM ads WHERE advertiser_id = ? AND last_seen = ? LIMIT 1'),
    advertiserLast: st('SELECT max(last_seen) AS d FROM ads WHERE advertiser_id = ?'),
    storeFirst: st('SELECT min(first_seen) AS d FROM ads'),
    storeHolds: st('SELECT 1 AS y FROM ads WHERE last_seen = ? LIMIT 1'),
    storeLast: st('SELECT max(last_seen) AS d FROM ads'),
    insertEntity: st('INSERT OR REPLACE INTO entities (kind, id, ads_total, row_doc, full_doc) VALUES (?, ?, ?, ?, ?)'),
    updateDocs: st('UPDATE entities SET row_doc = ?, full_doc = ? WHERE kind = ? AND id = ?'),
    movingOf: st('SELECT active_ads, first_seen, last_seen FROM entity_moving WHERE kind = ? AND id = ?'),
    setMoving: st('INSERT OR REPLACE INTO entity_moving (kind, id, active_ads, first_seen, last_seen) VALUES (?, ?, ?, ?, ?)'),
    deleteMoving: st('DELETE FROM entity_moving WHERE kind = ? AND id = ?'),
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

/**
 * Fills `entity_moving` from the records' docs in a store written before it (a writer opening it: once, as the table
 * is empty while records exist). Until then a reader takes the docs' own values (EntityReader).
 */
export function fillEntityMoving(db: DatabaseSync): void {
  if (db.prepare('SELECT 1 FROM entity_moving LIMIT 1').get() || !db.prepare('SELECT 1 FROM entities LIMIT 1').get()) return;
  const dated = [...DATED_KINDS].map((kind) => `'${kind}'`).join(', ');
  db.exec(`INSERT INTO entity_moving (kind, id, active_ads, first_seen, last_seen)
    SELECT kind, id, json_extract(full_doc, '$.${SHOWN_AS.active_ads}'),
      CASE WHEN kind IN (${dated}) THEN json_extract(full_doc, '$.${SHOWN_AS.first_seen}') END,
      CASE WHEN kind IN (${dated}) THEN json_extract(full_doc, '$.${SHOWN_AS.last_seen}') END
    FROM entities`);
}
