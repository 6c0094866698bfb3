import { z } from 'zod';
import { baseConfigShape, port } from '@adintel/config';

const STORE_ENGINES = ['sqlite', 'elasticsearch'] as const;

/** The Elasticsearch engine's variables; its client settings are parsed by the same rules (es-client.ts). */
export const elasticsearchConfigShape = {
  ES_URL: z.url({ protocol: /^https?$/ }).optional().describe('Elasticsearch URL (STORE_ENGINE=elasticsearch)'),
  ES_INDEX_PREFIX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be a lower-case index name prefix')
    .default('adintel')
    .describe('prefix of every index and alias'),
  ES_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000).describe('per-request timeout'),
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
    QUERY_WORKERS: z.coerce.number().int().min(0).max(32).default(2).describe('read-only SQLite worker threads (0 = in-process)'),
    ...elasticsearchConfigShape,
  })
  .superRefine((config, ctx) => {
    if (config.STORE_ENGINE === 'elasticsearch' && !config.ES_URL) {
      ctx.addIssue({ code: 'custom', path: ['ES_URL'], message: 'is required when STORE_ENGINE=elasticsearch' });
    }
  });
export type AppConfig = z.infer<typeof appConfigSchema>;
