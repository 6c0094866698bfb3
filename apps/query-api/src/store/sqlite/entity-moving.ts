import { DATED_KINDS, type EntityKind } from './entity-facets';

/**
 * What a re-sighting moves in an entity's record (decisions/0020; an ad's own are in moving-values.ts): its active ads
 * and, for the kinds whose records show them, its first and last seen dates. `entity_moving` holds them current; the
 * record's docs (`entities`) keep their copy from when they were last rendered, and every reader takes them from the
 * row (withEntityMoving). A batch that moves only these writes a row of a few dozen bytes per entity, not its records
 * (kilobytes each, in overflow pages).
 */
export interface EntityMoving {
  /** Null for a kind whose record does not show it. */
  active_ads: number | null;
  /** Null for a kind whose record shows no dates; '' for one with none. */
  first_seen: string | null;
  last_seen: string | null;
}

/** The record's fields the moving values are shown in. */
export const SHOWN_AS = { active_ads: 'active_ads', first_seen: 'first_seen_date', last_seen: 'last_seen_date' } as const satisfies Record<keyof EntityMoving, string>;

/** The moving values a rendered record shows (its full doc holds every field of its row). */
export function movingShown(kind: EntityKind, full: unknown): EntityMoving {
  const doc = full as Record<string, unknown>;
  const dated = DATED_KINDS.has(kind);
  return {
    active_ads: SHOWN_AS.active_ads in doc ? (doc[SHOWN_AS.active_ads] as number) : null,
    first_seen: dated ? ((doc[SHOWN_AS.first_seen] as string | undefined) ?? null) : null,
    last_seen: dated ? ((doc[SHOWN_AS.last_seen] as string | undefined) ?? null) : null,
  };
}

export const sameEntityMoving = (a: EntityMoving, b: EntityMoving) =>
  a.active_ads === b.active_ads && a.first_seen === b.first_seen && a.last_seen === b.last_seen;

/** A parsed doc (a row or a full record) with the current moving values, in place: each field the doc has keeps its place. */
export function withEntityMoving<T>(doc: T, moving: EntityMoving | undefined): T {
  if (!moving) return doc;
  const fields = doc as Record<string, unknown>;
  for (const key of Object.keys(SHOWN_AS) as (keyof EntityMoving)[]) {
    const value = moving[key];
    if (value !== null && SHOWN_AS[key] in fields) fields[SHOWN_AS[key]] = value;
  }
  return doc;
}
