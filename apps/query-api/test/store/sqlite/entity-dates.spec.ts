import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toAdRecord } from '../../../src/ingest/ad-line';
import { generateDemoAds } from '../../../src/ingest/demo-generator';
import type { AdRecord } from '../../../src/store/ad-store.port';
import { extremeAfter } from '../../../src/store/sqlite/entity-facets';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store';
import { addDays, dayNumber } from '../../../src/store/text';
import { firstDifference } from '../live-sightings';
import { liveBesideOffline } from './offline-load';

/**
 * First and last seen dates without per-date counters (decisions/0016): a live batch moves an advertiser's, a
 * creative's and the catalog's dates by arithmetic, and asks the ads only when the ad holding one leaves it or moves
 * off it. Each case holds such an ad (the only one on the extreme day, or one of two) and ends as one offline load of
 * the final ads answers, every data tool; the dates it checks by name must have moved (or held, where another ad holds
 * the day), so the case cannot pass without exercising the path.
 */
describe('entity dates after live batches', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'query-entity-dates-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const base = [...generateDemoAds(400, 4242)].map(toAdRecord);
  const minOf = (xs: string[]) => xs.reduce((m, x) => (x < m ? x : m));
  const maxOf = (xs: string[]) => xs.reduce((m, x) => (x > m ? x : m));
  const newest = maxOf(base.map((ad) => ad.last_seen_date));
  const oldest = minOf(base.map((ad) => ad.first_seen_date));
  // An advertiser with several ads, and one of its ads whose creative has another ad too: `held` is made the only ad on
  // its advertiser's, its creative's and the catalog's first and last days.
  const byAdvertiser = (id: string) => base.filter((ad) => ad.advertiser_id === id);
  const held = base.find(
    (ad) => byAdvertiser(ad.advertiser_id).length >= 3 && base.some((other) => other.id !== ad.id && other.creative_id === ad.creative_id),
  ) as AdRecord;
  const other = base.find((ad) => ad.advertiser_id !== held.advertiser_id && ad.creative_id !== held.creative_id) as AdRecord;
  const dated = (ad: AdRecord, first: string, last: string): AdRecord => ({
    ...ad,
    first_seen_date: first,
    last_seen_date: last,
    days_active: dayNumber(last) - dayNumber(first),
    activity_days_amount: 1,
  });
  const extreme = dated(held, addDays(oldest, -3), addDays(newest, 3));
  const firstLoad = base.map((ad) => (ad.id === held.id ? extreme : ad));

  const stores = (name: string, load: AdRecord[], batches: AdRecord[][], final: AdRecord[]) => liveBesideOffline(dir, name, load, batches, final);

  /** The dates the final ads give an advertiser, a creative and the catalog. */
  const datesOf = (ads: AdRecord[]) => ({
    first: minOf(ads.map((ad) => ad.first_seen_date)),
    last: maxOf(ads.map((ad) => ad.last_seen_date)),
  });
  const replace = (ads: AdRecord[], ad: AdRecord) => ads.map((a) => (a.id === ad.id ? ad : a));

  async function expectDates(live: SqliteStore, final: AdRecord[], advertiserId: string, creativeId: string) {
    const advertiser = datesOf(final.filter((ad) => ad.advertiser_id === advertiserId));
    const creative = datesOf(final.filter((ad) => ad.creative_id === creativeId));
    const catalog = datesOf(final);
    expect(await live.getAdvertiser(advertiserId)).toMatchObject({ first_seen_date: advertiser.first, last_seen_date: advertiser.last });
    expect(await live.getCreative(creativeId)).toMatchObject({ first_seen_date: creative.first, last_seen_date: creative.last });
    expect(await live.catalog()).toMatchObject({ firstSeenDate: catalog.first, lastSeenDate: catalog.last });
    return { advertiser, creative, catalog };
  }

  it('an ad holding the last day alone moves earlier: advertiser, creative and catalog take the next latest day', async () => {
    const moved = { ...dated(extreme, extreme.first_seen_date, addDays(extreme.first_seen_date, 1)), impressions: extreme.impressions + 1 };
    const final = replace(firstLoad, moved);
    const { expected, live } = await stores('earlier', firstLoad, [[moved]], final);
    try {
      const dates = await expectDates(live, final, held.advertiser_id, held.creative_id);
      for (const d of [dates.advertiser, dates.creative, dates.catalog]) expect(d.last < extreme.last_seen_date).toBe(true);
      expect(await firstDifference(expected, live, final)).toBeNull();
    } finally {
      await Promise.all([expected.close(), live.close()]);
    }
  }, 60_000);

  it('an ad holding the first and last days alone moves to another advertiser and creative: both sides follow', async () => {
    const rekeyed: AdRecord = {
      ...extreme,
      advertiser_id: other.advertiser_id,
      advertiser_name: other.advertiser_name,
      advertiser_account_id: other.advertiser_account_id,
      creative_id: other.creative_id,
      creative_format: other.creative_format,
    };
    const final = replace(firstLoad, rekeyed);
    const { expected, live } = await stores('rekeyed', firstLoad, [[rekeyed]], final);
    try {
      const left = await expectDates(live, final, held.advertiser_id, held.creative_id);
      expect(left.advertiser.first > extreme.first_seen_date && left.advertiser.last < extreme.last_seen_date).toBe(true);
      expect(left.creative.first > extreme.first_seen_date && left.creative.last < extreme.last_seen_date).toBe(true);
      const joined = await expectDates(live, final, other.advertiser_id, other.creative_id);
      expect(joined.advertiser).toEqual({ first: extreme.first_seen_date, last: extreme.last_seen_date });
      expect(joined.creative).toEqual({ first: extreme.first_seen_date, last: extreme.last_seen_date });
      expect(joined.catalog).toEqual({ first: extreme.first_seen_date, last: extreme.last_seen_date });
      expect(await firstDifference(expected, live, final)).toBeNull();
    } finally {
      await Promise.all([expected.close(), live.close()]);
    }
  }, 60_000);

  it('an ad holding the first day alone is first seen later (its row replaced): the earliest day is read again', async () => {
    const later = dated(extreme, addDays(extreme.last_seen_date, -1), extreme.last_seen_date);
    const final = replace(firstLoad, later);
    const { expected, live } = await stores('first-later', firstLoad, [[later]], final);
    try {
      const dates = await expectDates(live, final, held.advertiser_id, held.creative_id);
      for (const d of [dates.advertiser, dates.creative, dates.catalog]) expect(d.first > extreme.first_seen_date).toBe(true);
      expect(await firstDifference(expected, live, final)).toBeNull();
    } finally {
      await Promise.all([expected.close(), live.close()]);
    }
  }, 60_000);

  it('one of two ads on the last day moves earlier: the day holds; then the other leaves too over two batches', async () => {
    // A second ad of the same advertiser and creative on the extreme days: after the first batch the day holds (the ads
    // are asked whether another holds it); after the second, neither does.
    const twin = base.find((ad) => ad.id !== held.id && ad.creative_id === held.creative_id) as AdRecord;
    const twinExtreme = { ...dated(twin, extreme.first_seen_date, extreme.last_seen_date), advertiser_id: held.advertiser_id, advertiser_name: held.advertiser_name, advertiser_account_id: held.advertiser_account_id };
    const load = replace(firstLoad, twinExtreme);
    const heldEarlier = dated(extreme, extreme.first_seen_date, addDays(extreme.first_seen_date, 2));
    const twinEarlier = dated(twinExtreme, twinExtreme.first_seen_date, addDays(twinExtreme.first_seen_date, 1));
    const middle = replace(load, heldEarlier);
    const final = replace(middle, twinEarlier);
    const { expected, live } = await stores('twin', load, [[heldEarlier]], middle);
    try {
      const dates = await expectDates(live, middle, held.advertiser_id, held.creative_id);
      for (const d of [dates.advertiser, dates.creative, dates.catalog]) expect(d.last).toBe(extreme.last_seen_date);
      expect(await firstDifference(expected, live, middle)).toBeNull();
    } finally {
      await Promise.all([expected.close(), live.close()]);
    }
    const after = await stores('twin-both', load, [[heldEarlier], [twinEarlier]], final);
    try {
      const dates = await expectDates(after.live, final, held.advertiser_id, held.creative_id);
      for (const d of [dates.advertiser, dates.creative, dates.catalog]) expect(d.last < extreme.last_seen_date).toBe(true);
      expect(await firstDifference(after.expected, after.live, final)).toBeNull();
    } finally {
      await Promise.all([after.expected.close(), after.live.close()]);
    }
  }, 120_000);
});

describe('extremeAfter (a date extreme after a batch, by arithmetic)', () => {
  it('takes a date added past the stored one, keeps the stored one otherwise', () => {
    expect(extremeAfter('2026-03-01', [['2026-03-05', 2], ['2026-02-01', -1]], 'max')).toBe('2026-03-05');
    expect(extremeAfter('2026-03-01', [['2026-03-01', 1], ['2026-02-01', -1]], 'max')).toBe('2026-03-01');
    expect(extremeAfter('2026-03-01', [['2026-02-20', 1], ['2026-02-01', -1]], 'max')).toBe('2026-03-01');
    expect(extremeAfter('2026-01-10', [['2026-01-02', 1], ['2026-03-01', -1]], 'min')).toBe('2026-01-02');
  });

  it('cannot tell (null) when ads left the stored extreme and nothing added reaches it', () => {
    expect(extremeAfter('2026-03-01', [['2026-03-01', -1], ['2026-02-20', 1]], 'max')).toBeNull();
    expect(extremeAfter('2026-01-10', [['2026-01-10', -2]], 'min')).toBeNull();
    // Something added past it settles it, whatever left.
    expect(extremeAfter('2026-03-01', [['2026-03-01', -1], ['2026-03-02', 1]], 'max')).toBe('2026-03-02');
  });

  it('an entity with no dates before takes the extreme of what the batch added', () => {
    expect(extremeAfter(null, [['2026-03-01', 1], ['2026-03-04', 1]], 'max')).toBe('2026-03-04');
    expect(extremeAfter('', [['2026-03-01', 1], ['2026-03-04', 1]], 'min')).toBe('2026-03-01');
    expect(extremeAfter(null, [], 'max')).toBe('');
  });
});
