import { z } from 'zod';
import { baseConfigShape, flag, port } from '@adintel/config';
import { checkMediaStoreConfig, mediaStoreConfigShape } from '@adintel/media-store';

const STORE_ENGINES = ['sqlite', 'elasticsearch'] as const;

/** Where creative media files live (src/media/media-store-factory.ts). S3 credentials come from the AWS SDK's own chain. */
export const mediaConfigShape = {
  ...mediaStoreConfigShape,
  MEDIA_FETCH: flag(false).describe(
    'fetch the http(s) media URLs of ingested and live lines into the media store (public addresses only, no redirects, ' +
      'allowed types only, size and time bounds); off: such entries keep their URL without a stored file',
  ),
  MEDIA_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000).describe('time bound of one media fetch, connection to last byte'),
  MEDIA_FETCH_ALLOW_LOOPBACK: flag(false).describe(
    'TESTS ONLY: media fetches may also reach loopback addresses (a test’s local HTTP server); refused with NODE_ENV=production',
  ),
};

/** The Elasticsearch engine's variables; its client settings are parsed by the same rules (es-client.ts). */
export const elasticsearchConfigShape = {
  ES_URL: z.url({ protocol: /^https?$/ }).optional().describe('Elasticsearch URL (STORE_ENGINE=elasticsearch)'),
  ES_INDEX_PREFIX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be a lower-case index name prefix')
    .default('adintel')
    .describe('prefix of every index and alias'),
  ES_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000).describe('per-request timeout'),
  ES_ADS_SHARDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(128)
    .default(1)
    .describe('primary shards of each monthly ad index created from now on (sizing rule: docs/operations.md)'),
  ES_REPLICAS: z.coerce.number().int().min(0).max(8).default(1).describe('replicas of every index created from now on (0 on a one-node cluster)'),
};

/** The live door's variables (docs/live-data.md); the CLI's `ingest --live` and `dead-letters` read them too. */
export const ingestConfigShape = {
  INGEST_LIVE: flag(true).describe('consume the live stream of sightings while serving (docs/live-data.md)'),
  INGEST_STREAM: z
    .string()
    .min(1)
    .max(200)
    .default('ingest:ads')
    .describe(
      'the Redis stream of sightings, on the transport’s Redis (TRANSPORT_URL, else REDIS_URL); one field `line` per entry: one ' +
        'NDJSON ingest line; dead letters go to `<stream>:dead`',
    ),
  INGEST_GROUP: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9:._-]{0,199}$/, 'must be letters, digits and : . _ -')
    .optional()
    .describe(
      'consumer group of this replica on INGEST_STREAM; default: `query-api` with Elasticsearch (replicas share the work), ' +
        '`query-api:<host name>:<hash of DATA_DIR>` with SQLite (each replica owns its store file and applies every sighting)',
    ),
  INGEST_STREAM_MAX_LEN: z.coerce
    .number()
    .int()
    .min(100)
    .max(10_000_000)
    .default(100_000)
    .describe('the bound producers respect: a bounded add is refused while the stream holds this many entries (backpressure, never trimming)'),
  INGEST_BATCH_MAX: z.coerce.number().int().min(1).max(10_000).default(2_000).describe('most sightings applied as one batch'),
  INGEST_BATCH_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(500)
    .describe(
      'least time between the starts of two batches smaller than INGEST_BATCH_MAX: the writer brings the columns forward once per ' +
        'batch, so fewer, larger batches cost less; adds up to this much to freshness',
    ),
  INGEST_CLAIM_IDLE_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(3_600_000)
    .default(60_000)
    .describe('a batch pending this long with a silent consumer of the same group is claimed by a live one'),
};

export const appConfigSchema = z
  .object({
    ...baseConfigShape,
    PORT: port(3003),
    STORE_ENGINE: z.enum(STORE_ENGINES).default('sqlite').describe('where the ads live: embedded SQLite or Elasticsearch'),
    DATA_DIR: z.string().min(1).default('data/query').describe('the SQLite file (`ads.sqlite`), demo NDJSON and the generated cursor secret live here'),
    CURSOR_SECRET: z
      .string()
      .min(32, 'must be at least 32 characters')
      .optional()
      .describe(
        'HMAC key that signs pagination cursors; default: generated once and kept in DATA_DIR/cursor-secret. Set it when ' +
          'several replicas serve the same data',
      ),
    FEED_RETENTION_DAYS: z.coerce
      .number()
      .int()
      .min(1)
      .max(3_650)
      .default(30)
      .describe('days the change feed (search_ads changed_since) keeps changes; an older watermark is answered 410 (re-baseline)'),
    QUERY_WORKERS: z.coerce.number().int().min(0).max(32).default(2).describe('read-only SQLite worker threads (0 = in-process)'),
    ...elasticsearchConfigShape,
    ...ingestConfigShape,
    ...mediaConfigShape,
  })
  .superRefine((config, ctx) => {
    if (config.STORE_ENGINE === 'elasticsearch' && !config.ES_URL) {
      ctx.addIssue({ code: 'custom', path: ['ES_URL'], message: 'is required when STORE_ENGINE=elasticsearch' });
    }
    checkMediaStoreConfig(config, ctx);
    // The fetch guard's one opening is for tests on this machine: a production process must never fetch its own loopback.
    if (config.MEDIA_FETCH_ALLOW_LOOPBACK && config.NODE_ENV === 'production') {
      ctx.addIssue({ code: 'custom', path: ['MEDIA_FETCH_ALLOW_LOOPBACK'], message: 'is for tests only and is refused with NODE_ENV=production' });
    }
  });
export type AppConfig = z.infer<typeof appConfigSchema>;
