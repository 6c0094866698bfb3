import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdLine } from '../../../src/ingest/ad-line';
import { toAdRecord } from '../../../src/ingest/ad-line';
import { generateDemoAds } from '../../../src/ingest/demo-generator';
import { SHOWN_HEADS } from '../../../src/store/sqlite/entity-facets';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store';
import { firstDifference } from '../live-sightings';
import { liveBesideOffline } from './offline-load';

/**
 * The heads of long lists (SHOWN_HEADS: a domain's top advertisers and subdomains, a webmaster's top domains) after
 * live batches: ranked from the head the stored record shows and the keys the batch changed, unless the batch took ads
 * from a shown key. One domain and one webmaster here have more keys than their records show; a batch lifts a key from
 * below into the head by adding ads to it, another takes the ads of the top key away so that a key the batch did not
 * touch rises. Each ends as one offline load of the final ads answers, every data tool, and names the key that rose.
 */
describe('heads of long lists after live batches', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'query-entity-heads-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const DOMAIN = 'heads-test.com';
  const WEBMASTER = { id: 'wm_heads', name: 'Heads Network' };
  const lines = [...generateDemoAds(700, 77)];
  // Distinct advertisers of the demo data (their ids, names and accounts stay as generated).
  const advertisers = [...new Map(lines.map((line) => [line.advertiser.id, line.advertiser])).values()];
  const advertiserCount = SHOWN_HEADS.domain.advertiser.limit + 4;
  const domainCount = SHOWN_HEADS.webmaster.domain.limit + 4;
  const hostCount = SHOWN_HEADS.domain.host.limit + 6;

  /** n keys ranked by ads: key k on n - k of the first n(n+1)/2 positions; the key of position i. */
  const rankOf = (i: number, n: number) => {
    let left = i;
    for (let k = 0; k < n; k++) {
      if (left < n - k) return k;
      left -= n - k;
    }
    throw new Error(`position ${i} is past ${n} ranked keys`);
  };
  const onDomain = (advertiserCount * (advertiserCount + 1)) / 2;
  const onWebmaster = (domainCount * (domainCount + 1)) / 2;
  // Ads on DOMAIN: advertiser k on advertiserCount - k of them, hosts taken in turn (more hosts than the record
  // shows). Then ads of WEBMASTER: domain k on domainCount - k of them. The rest as generated.
  const base: AdLine[] = lines.map((line, i) => {
    if (i < onDomain) return { ...line, advertiser: advertisers[rankOf(i, advertiserCount)] as AdLine['advertiser'], landing_url: `https://h${i % hostCount}.${DOMAIN}/offer` };
    if (i < onDomain + onWebmaster) return { ...line, webmaster: WEBMASTER, landing_url: `https://www.wm-domain-${rankOf(i - onDomain, domainCount)}.com/` };
    return line;
  });

  /** `load` loaded, then `batches` applied live, beside one offline load of the final ads: both stores, opened. */
  async function stores(name: string, load: AdLine[], batches: AdLine[][]) {
    const final = new Map(load.map((line) => [line.id, line]));
    for (const line of batches.flat()) final.set(line.id, line);
    const records = [...final.values()].map(toAdRecord);
    const opened = await liveBesideOffline(dir, name, load.map(toAdRecord), batches.map((batch) => batch.map(toAdRecord)), records);
    return { ...opened, records };
  }

  const topAdvertisers = async (store: SqliteStore) => (await store.getDomain(DOMAIN))?.top_advertisers.map((a) => a.id) ?? [];

  it('the data has more keys than the records show', () => {
    expect(advertisers.length).toBeGreaterThan(advertiserCount);
    expect(lines.length).toBeGreaterThan(onDomain + onWebmaster);
  });

  it('a key below the head rises into it when a batch adds ads to it', async () => {
    const { expected, live, records } = await (async () => {
      const template = base[0] as AdLine;
      const riser = advertisers[advertiserCount - 1] as AdLine['advertiser'];
      const farDomain = `wm-domain-${domainCount - 1}.com`;
      const farHost = `h${hostCount - 1}.${DOMAIN}`;
      const added: AdLine[] = Array.from({ length: advertiserCount + 2 }, (_, k) => ({
        ...template,
        id: `heads_new_${k}`,
        advertiser: riser,
        landing_url: `https://${farHost}/new`,
      }));
      const webmasterAdded: AdLine[] = Array.from({ length: domainCount + 2 }, (_, k) => ({
        ...(base[onDomain] as AdLine),
        id: `heads_wm_${k}`,
        landing_url: `https://${farDomain}/new`,
      }));
      const s = await stores('rise', base, [added, webmasterAdded]);
      // The named keys were below their heads before and rose to the top.
      const domain = await s.live.getDomain(DOMAIN);
      expect(domain?.top_advertisers[0]?.id).toBe(riser.id);
      expect(domain?.subdomains[0]?.host).toBe(farHost);
      expect((await s.live.getWebmaster(WEBMASTER.id))?.landing_domains[0]).toBe(farDomain);
      return s;
    })();
    try {
      expect(await firstDifference(expected, live, records)).toBeNull();
    } finally {
      await expected.close();
      await live.close();
    }
  });

  it('a key the batch did not touch rises when the batch takes ads from a shown key', async () => {
    const before = base.filter((line) => line.advertiser.id === advertisers[0]?.id && line.landing_url.includes(DOMAIN));
    // The top advertiser's ads move to another domain: the one just below the head (untouched by the batch) rises.
    const moved = before.map((line) => ({ ...line, landing_url: 'https://elsewhere-heads.net/' }));
    const { expected, live, records } = await stores('fall', base, [moved]);
    try {
      const beforeStore = await stores('fall-before', base, []);
      const headBefore = await topAdvertisers(beforeStore.live);
      await beforeStore.expected.close();
      await beforeStore.live.close();
      const headAfter = await topAdvertisers(live);
      const risen = headAfter.filter((id) => !headBefore.includes(id));
      expect(headBefore).toContain(advertisers[0]?.id);
      expect(headAfter).not.toContain(advertisers[0]?.id);
      expect(risen).toEqual([advertisers[SHOWN_HEADS.domain.advertiser.limit]?.id]);
      expect(await firstDifference(expected, live, records)).toBeNull();
    } finally {
      await expected.close();
      await live.close();
    }
  });
});
