import type { estypes } from '@elastic/elasticsearch';
import type { CreativeHash } from '../../ad-store.port';
import type { RecordMedia } from '../../../media/stored-media';
import { TOLERATE_NO_INDEX } from './ads.query';
import { hitsOf } from './responses';

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
