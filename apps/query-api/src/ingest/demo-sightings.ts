import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { AdLine } from './ad-line';
import { dayNumber } from '../store/text';

/**
 * Live sightings for a store loaded from a demo NDJSON file (the seed's `demo-ads-N.ndjson`): `newShare` of them are
 * new ads (a demo line under a fresh id, first and last seen `today`), the rest re-sightings of ads the file holds
 * (seen again `today`: active, one more activity day, more impressions). Deterministic for a seed. Used by the live
 * benchmarks and by `ingest --live` demos. `newIds`: 'after' (default) names new ads `<idPrefix>N`, which sort after the
 * seed's `ad_N`; 'among' names each after the stored ad it copies (`ad_Nx<seed>_<i>`), so its id falls among the stored
 * ones, as real platforms' ids (hashes, numbers) do.
 */
export async function demoSightings(
  file: string,
  count: number,
  options: { newShare?: number; seed?: number; today?: string; idPrefix?: string; newIds?: 'after' | 'among' } = {},
): Promise<AdLine[]> {
  const newShare = options.newShare ?? 0.3;
  let state = options.seed ?? 7;
  const random = () => {
    // mulberry32: small, seeded, good enough to spread picks over the file
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const { sample: lines, newest } = await sampleLines(file, count, random);
  const today = options.today ?? newest;
  const prefix = options.idPrefix ?? `live_${options.seed ?? 7}_`;
  const out: AdLine[] = [];
  for (let i = 0; i < count; i++) {
    const line = lines[Math.floor(random() * lines.length)] as AdLine;
    if (random() < newShare) {
      const id = options.newIds === 'among' ? `${line.id}x${options.seed ?? 7}_${i}` : `${prefix}${i.toString().padStart(9, '0')}`;
      out.push({ ...line, id, first_seen_date: today, last_seen_date: today, status_today: 'active', activity_days_amount: 1 });
    } else {
      const last = line.last_seen_date > today ? line.last_seen_date : today;
      const span = dayNumber(last) - dayNumber(line.first_seen_date) + 1;
      out.push({
        ...line,
        last_seen_date: last,
        status_today: 'active',
        activity_days_amount: Math.min(span, line.activity_days_amount + 1),
        impressions: line.impressions + 1 + Math.floor(random() * 10_000),
      });
    }
  }
  return out;
}

/** A uniform sample of `size` lines (reservoir sampling: one pass, `size` lines in memory) and the newest last_seen_date. */
async function sampleLines(file: string, size: number, random: () => number): Promise<{ sample: AdLine[]; newest: string }> {
  const sample: AdLine[] = [];
  let newest = '';
  let seen = 0;
  for await (const text of createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity })) {
    if (!text.trim()) continue;
    const at = seen < size ? seen : Math.floor(random() * (seen + 1));
    seen++;
    // Only the kept lines are parsed; the newest date is read without parsing the rest.
    const last = /"last_seen_date":"([0-9-]{10})"/.exec(text)?.[1] ?? '';
    if (last > newest) newest = last;
    if (at < size) sample[at] = JSON.parse(text) as AdLine;
  }
  return { sample, newest };
}
