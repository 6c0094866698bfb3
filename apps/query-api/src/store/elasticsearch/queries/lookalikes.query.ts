import type { estypes } from '@elastic/elasticsearch';
import type { CreativeRow } from '@adintel/contracts';
import type { CreativeHash, CreativeRecord } from '../../ad-store.port';
import type { RecordMedia } from '../../record-media';
import { TOLERATE_NO_INDEX } from './ads.query';
import { hitsOf } from './responses';
import { toCreativeRow } from './rollups.query';

/** Creatives read per page while the look-alike index is (re)built. */
export const CREATIVE_HASH_PAGE = 5_000;

/**
 * One page of creative records, in id order after `after`, keeping only the hash of the first picture. The records
 * are not indexed (`record` is stored only), so this reads `_source`; the look-alike index is built from these pages
 * in query-api (src/media/lookalikes.ts) and rebuilt at most once a minute, rather than asking Elasticsearch to
 * compare hashes per query.
 */
export function creativeHashesRequest(index: string, after: string | null): estypes.SearchRequest {
  return {
    index,
    ...TOLERATE_NO_INDEX,
    size: CREATIVE_HASH_PAGE,
    sort: [{ id: 'asc' }],
    ...(after === null ? {} : { search_after: [after] }),
    _source: ['id', 'record.media.stored.phash'],
    query: { match_all: {} },
    track_total_hits: false,
  };
}

type CreativeHashSource = { id?: string; record?: { media?: Pick<RecordMedia, 'stored'>[] } };

/** The page's hashes, and the id to continue after (null at the end). */
export function creativeHashesFrom(response: estypes.SearchResponse<CreativeHashSource>): { hashes: CreativeHash[]; next: string | null } {
  const sources = hitsOf(response);
  const hashes = sources.flatMap((source) => {
    const phash = source.record?.media?.[0]?.stored?.phash;
    return source.id && phash ? [{ id: source.id, phash }] : [];
  });
  const last = sources.at(-1)?.id;
  return { hashes, next: sources.length === CREATIVE_HASH_PAGE && last ? last : null };
}

/** The fields of a creative record its list row keeps (toCreativeRow): the rest (media, countries...) is not read. */
const CREATIVE_ROW_FIELDS = ['id', 'title', 'creative_format', 'ads_count', 'advertisers_count', 'platforms', 'first_seen_date', 'last_seen_date'];

/** Many creatives by id in one search (a look-alike page ranks up to a few hundred), only what their rows show. */
export function creativeRowsRequest(index: string, ids: readonly string[]): estypes.SearchRequest {
  return {
    index,
    ...TOLERATE_NO_INDEX,
    size: ids.length,
    query: { ids: { values: [...ids] } },
    _source: CREATIVE_ROW_FIELDS.map((field) => `record.${field}`),
    track_total_hits: false,
  };
}

/** The rows in the order of `ids`; ids the response does not hold are left out. */
export function creativeRowsFrom(ids: readonly string[], response: estypes.SearchResponse<{ record?: CreativeRecord }>): CreativeRow[] {
  const rows = new Map(hitsOf(response).flatMap((source) => (source.record?.id ? [[source.record.id, toCreativeRow(source.record)] as const] : [])));
  return ids.flatMap((id) => {
    const row = rows.get(id);
    return row ? [row] : [];
  });
}

/** The media of many ads by id (every monthly copy: the live door reads them before a batch), nothing else. */
export function heldAdMediaRequest(index: string, adIds: readonly string[]): estypes.SearchRequest {
  return { index, ...TOLERATE_NO_INDEX, size: adIds.length * 2, query: { ids: { values: [...adIds] } }, _source: ['media'], track_total_hits: false };
}

/** The media of many creatives by id (a creative record holds those of its first ad), nothing else. */
export function heldCreativeMediaRequest(index: string, creativeIds: readonly string[]): estypes.SearchRequest {
  return { index, ...TOLERATE_NO_INDEX, size: creativeIds.length, query: { ids: { values: [...creativeIds] } }, _source: ['record.media'], track_total_hits: false };
}

/** An ad's `_source` (media) or a creative record's (record.media), as the two requests above read them. */
export type HeldMediaSource = { media?: RecordMedia[]; record?: { media?: RecordMedia[] } };

export function heldMediaFrom(response: estypes.SearchResponse<HeldMediaSource>): RecordMedia[] {
  return hitsOf(response).flatMap((source) => source.media ?? source.record?.media ?? []);
}
