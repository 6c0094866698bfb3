import type { AdChange } from '@adintel/contracts';
import { classify, visibleState } from '../visible-state';
import type { AdDocument, FeedFields, FeedHistory, FeedRange } from './ad-document';

/**
 * The change feed on Elasticsearch (issue 36; ADR 0010 section "Change feed"). Each ad document carries its own
 * change position, written with the batch that changed it:
 * - `change_seq`: the live batch of its last visible change (the feed's order: change_seq, then id);
 * - `changed_at`: when that batch was applied;
 * - `feed`: its history since the retention floor, `added` (the batch that brought it; 0: the offline load) and the
 *   visible state after each change (`visibleState` of the SQLite engine: one definition of "what an agent sees");
 * - `feed_since`: the positions P from which the ad is in the feed (its state at P differs from its state now, or it
 *   is newer than P), as `long_range` values: "changed since P" is one `term` query on it, so the feed, its pages and
 *   its count are exact queries, never a scan that drops reverted changes afterwards.
 * An ad nothing happened to since the offline load carries none of them. The store's own position (the newest
 * published batch, the data's day, the retention floor) is one document of `<prefix>-feed` (FeedPosition).
 */

/** What one batch is, for the feed fields it writes. */
export interface FeedStep {
  seq: number;
  /** ISO time the batch is applied. */
  at: string;
  /** The data's day (newest last sighting) before the batch, and with it. */
  oldDay: string;
  newDay: string;
  /** The retention floor: history before it is folded into one entry (no watermark before it is answered). */
  from: number;
}

/** The fields of an ad document that belong to its store's change feed (a copy into a new store leaves them out). */
export const FEED_KEYS = ['change_seq', 'changed_at', 'feed_since', 'feed'] as const;

/** The feed fields a stored document carries (none: nothing visible happened to it since the offline load). */
export function feedFieldsOf(doc: Partial<AdDocument>): Partial<FeedFields> {
  const out: Partial<FeedFields> = {};
  for (const key of FEED_KEYS) if (doc[key] !== undefined) Object.assign(out, { [key]: doc[key] });
  return out;
}

export function withoutFeed(doc: AdDocument): AdDocument {
  const copy = { ...doc };
  for (const key of FEED_KEYS) delete copy[key];
  return copy;
}

/** The positions from which an ad with this history is in the feed: before it was added, and where its state differs from now. */
export function rangesOf(history: FeedHistory): FeedRange[] {
  const ranges: FeedRange[] = history.added > 0 ? [{ gte: 0, lt: history.added }] : [];
  const now = history.states.at(-1)?.[1];
  history.states.forEach(([seq, state], i) => {
    const next = history.states[i + 1];
    if (!next || state === now) return;
    const last = ranges.at(-1);
    if (last && last.lt === seq) last.lt = next[0];
    else ranges.push({ gte: seq, lt: next[0] });
  });
  return ranges;
}

/**
 * The document `next` (a new version of an ad, or the stored one the data's day moved past) with its feed fields after
 * this batch: a new entry when its visible state moved (`stored` as of the old day against `next` as of the new one),
 * else the stored fields carried unchanged, so a re-sighting that moves only dates or counters writes the same feed.
 */
export function withFeed(next: AdDocument, stored: AdDocument | undefined, step: FeedStep): AdDocument {
  const base = withoutFeed(next);
  const after = visibleState(base, step.newDay);
  if (!stored) return { ...base, ...fields({ added: step.seq, states: [[step.seq, after]] }, step) };
  const before = visibleState(stored, step.oldDay);
  if (before === after) return { ...base, ...feedFieldsOf(stored) };
  const history: FeedHistory = stored.feed ?? { added: 0, states: [[0, before]] };
  // A batch applied again after a failure (same seq) replaces its own entry.
  const states = history.states.filter(([seq]) => seq < step.seq);
  states.push([step.seq, after]);
  return { ...base, ...fields({ added: history.added, states: folded(states, step.from) }, step) };
}

/** Entries at or before the floor answer no watermark but the floor's own: only the last of them is kept. */
function folded(states: [number, string][], from: number): [number, string][] {
  const firstKept = states.findLastIndex(([seq]) => seq <= from);
  return firstKept > 0 ? states.slice(firstKept) : states;
}

function fields(history: FeedHistory, step: FeedStep): FeedFields {
  return { change_seq: step.seq, changed_at: step.at, feed_since: rangesOf(history), feed: history };
}

/** What changed for an agent holding position `since` (null: nothing, or no history). */
export function changeSince(history: FeedHistory | undefined, since: number): AdChange | null {
  const now = history?.states.at(-1)?.[1];
  if (!history || now === undefined) return null;
  if (history.added > since) return 'new';
  let before = history.states[0]?.[1] ?? now;
  for (const [seq, state] of history.states) if (seq <= since) before = state;
  return classify(before, now);
}

/** The store's position, as `<prefix>-feed/_doc/position` holds it. */
export interface FeedPosition {
  /** The loaded data (each offline load is a new store: watermarks of the one before are foreign). */
  store: string;
  /** The newest published live batch (0: the load). */
  seq: number;
  /** The retention floor: watermarks before it are expired. */
  from: number;
  /** The data's day: the newest last sighting. */
  day: string;
  /** At most one [seq, ISO time] an hour, over the retention window: where the floor moves to. */
  marks: [number, string][];
  /** The writer applying the next batch (batches are applied one at a time, see the writer), until when. */
  lease: { owner: string; until: number } | null;
}

const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** The position after publishing batch `seq` at `now`: its mark, the floor of the retention window, the new day. */
export function published(position: FeedPosition, seq: number, day: string, now: number, retentionMs: number): FeedPosition {
  const marks = [...position.marks];
  const lastMark = marks.at(-1);
  if (!lastMark || Date.parse(lastMark[1]) <= now - HOUR_MS) marks.push([seq, new Date(now).toISOString()]);
  const cutoff = now - retentionMs;
  // The newest mark older than the window: every batch up to it is older too, so watermarks before it are expired.
  const expired = marks.findLastIndex(([, at]) => Date.parse(at) < cutoff);
  const from = expired >= 0 ? Math.max(position.from, marks[expired]?.[0] ?? 0) : position.from;
  return { ...position, seq, day, from, marks: expired > 0 ? marks.slice(expired) : marks, lease: null };
}
