/**
 * The adapter's parsers on the specification's OWN response examples (schema.json of @elastic/request-converter, the
 * examples Elastic's API reference shows), not on answers written by us: what a cluster documents it sends, read as the
 * engine reads it. A parser that cannot read them fails here.
 */
import { readFileSync } from 'node:fs';
import type { estypes } from '@elastic/elasticsearch';
import { countFrom } from '../../../../src/store/elasticsearch/queries/ads.query';
import { bulkRoundFrom, type BulkAction } from '../../../../src/store/elasticsearch/queries/bulk.query';
import { positionFrom, positionVersionOf } from '../../../../src/store/elasticsearch/queries/feed.query';
import { storedCopiesFrom } from '../../../../src/store/elasticsearch/queries/live.query';
import type { AdDocument } from '../../../../src/store/elasticsearch/ad-document';
import type { FeedPosition } from '../../../../src/store/elasticsearch/change-feed';
import { SCHEMA_PATH, specification } from './es-spec';

interface SchemaType {
  kind: string;
  name: { namespace: string; name: string };
  examples?: Record<string, { value: string }>;
}
const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as { types: SchemaType[] };

/** The example response `name` of an endpoint, parsed (they are stored as JSON text). */
function example<T>(endpoint: string, name: string): T {
  const type = schema.types.find((t) => t.kind === 'response' && t.name.namespace === `_global.${endpoint}`);
  const text = type?.examples?.[name]?.value;
  if (!text) throw new Error(`no example ${name} for ${endpoint}`);
  const value = JSON.parse(text) as T;
  // The examples are themselves in the response type (so are the stand-in's answers): checked, so this test means something.
  expect(specification().validateResponse(endpoint, value)).toEqual([]);
  return value;
}

const actions = (n: number): BulkAction[] => Array.from({ length: n }, (_, i) => ({ action: { index: { _index: 'x', _id: String(i) } }, document: {}, id: String(i) }));

describe("the adapter reads the specification's own response examples", () => {
  it('bulk: every item done, and per-item errors as failures with their type and reason', () => {
    const done = example<estypes.BulkResponse>('bulk', 'BulkResponseExample1');
    expect(bulkRoundFrom(actions(done.items.length), done)).toEqual({ throttled: [], failed: [] });
    const partial = example<estypes.BulkResponse>('bulk', 'BulkResponseExample2');
    const round = bulkRoundFrom(actions(3), partial);
    expect(round.failed.map((f) => [f.action.id, f.status, f.reason])).toEqual([
      ['0', 404, 'document_missing_exception: [5]: document missing'],
      ['1', 404, 'document_missing_exception: [6]: document missing'],
    ]);
  });

  it('search: hits with their index and id, and the total', () => {
    const response = example<estypes.SearchResponse<AdDocument>>('search', 'SearchResponseExample1');
    expect(countFrom(response, 10_000)).toEqual({ total: 20, estimated: false });
    expect([...storedCopiesFrom(response).entries()].map(([id, copies]) => [id, copies.map((c) => c.index)])).toEqual([['0', ['my-index-000001']]]);
  });

  it('get and index: the version a conditional write of the feed position names', () => {
    const found = example<estypes.GetGetResult<FeedPosition>>('get', 'GetResponseExample1');
    expect(positionFrom(found)?.version).toEqual({ if_seq_no: 0, if_primary_term: 1 });
    const written = example<estypes.WriteResponseBase>('index', 'IndexResponseExample2');
    expect(positionVersionOf(written)).toEqual({ if_seq_no: written._seq_no, if_primary_term: written._primary_term });
  });
});
