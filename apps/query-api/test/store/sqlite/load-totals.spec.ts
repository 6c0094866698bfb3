import { toAdRecord } from '../../../src/ingest/ad-line';
import { generateDemoAds } from '../../../src/ingest/demo-generator';
import {
  eachFacet,
  facetSourceOfRecord,
  FacetTotals,
  type FacetKind,
  type FacetSource,
  type Facets,
  LoadTotals,
  renderEntity,
  STORED_KINDS,
} from '../../../src/store/sqlite/entity-facets';

/** Demo ads as the rollup scan reads them (lists deduplicated, as stored). */
function sources(count: number, seed: number): FacetSource[] {
  return [...generateDemoAds(count, seed)].map(toAdRecord).map(facetSourceOfRecord);
}

/** Every record rendered from a set of counters, by kind and id (names looked up as the load does). */
function rendered(entities: Iterable<[FacetKind, string, Facets]>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [kind, id, facets] of entities) {
    if (kind === 'store') {
      out.set('store', JSON.stringify([facets.scalar('#ads'), facets.scalar('#active'), facets.min('first'), facets.max('last'), facets.entries('country')]));
      continue;
    }
    out.set(`${kind}/${id}`, JSON.stringify(renderEntity(kind, id, facets, (_kind, aid) => aid, () => 'title')));
  }
  return out;
}

describe('a full load\'s counters (LoadTotals)', () => {
  const ads = sources(3_000, 23);

  it('give the counters and records the general counters (FacetTotals) give for the same ads', () => {
    const load = new LoadTotals();
    const general = new FacetTotals();
    for (const ad of ads) {
      eachFacet(ad, 1, load);
      eachFacet(ad, 1, general);
    }
    const counters = (each: (fn: (kind: FacetKind, id: string, facet: string, key: string, n: number) => void) => void) => {
      const rows: string[] = [];
      each((kind, id, facet, key, n) => rows.push(`${kind}|${id}|${facet}|${key}|${n}`));
      return rows;
    };
    const expected = counters((fn) => general.eachCounter(true, fn));
    expect(expected.length).toBeGreaterThan(3_000);
    expect(counters((fn) => load.eachCounter(fn))).toEqual(expected);
    // Creatives are not stored (STORED_KINDS) but rendered: every kind's records must match.
    const fromLoad = rendered(load.entities());
    const fromGeneral = rendered(general.entities());
    expect([...fromLoad.keys()].sort()).toEqual([...fromGeneral.keys()].sort());
    for (const [key, record] of fromGeneral) expect([key, fromLoad.get(key)]).toEqual([key, record]);
    expect(STORED_KINDS.has('creative')).toBe(false);
    // By kind (what writeAll renders from), the same entities.
    const byKind = [...(['advertiser', 'webmaster', 'creative', 'domain', 'app', 'store'] as const)].flatMap((kind) =>
      [...load.ofKind(kind)].map(([id, facets]): [FacetKind, string, Facets] => [kind, id, facets]),
    );
    expect(rendered(byKind)).toEqual(fromLoad);
  });

  it('only add', () => {
    const load = new LoadTotals();
    expect(() => eachFacet(ads[0] as FacetSource, -1, load)).toThrow('a full load only adds');
  });
});
