import { z } from 'zod';
import { FilesystemMediaReader } from './filesystem-media-reader';
import type { MediaReader } from './media-reader.port';
import { S3MediaReader, type S3MediaSettings } from './s3-media-reader';

const MEDIA_ENGINES = ['filesystem', 's3'] as const;

/**
 * Where the media files live, the same variables in every app that reads or writes them (query-api, its picture
 * workers, mcp-gateway). S3 credentials come from the AWS SDK's own chain, never from these. The filesystem engine's
 * folder is each app's own setting (query-api: DATA_DIR/media; the gateway: MEDIA_DIR).
 */
export const mediaStoreConfigShape = {
  MEDIA_ENGINE: z.enum(MEDIA_ENGINES).default('filesystem').describe('where media files live: a folder (query-api’s DATA_DIR/media) or S3-compatible storage'),
  MEDIA_S3_BUCKET: z.string().min(3).max(63).optional().describe('bucket of the media files (MEDIA_ENGINE=s3)'),
  MEDIA_S3_PREFIX: z
    .string()
    .regex(/^([a-z0-9][a-z0-9_-]*\/)*$/, 'must be empty or lower-case folders ending with /')
    .default('media/')
    .describe('key prefix of every media object'),
  MEDIA_S3_REGION: z.string().min(1).default('us-east-1').describe('region of the bucket'),
  MEDIA_S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional().describe('an S3-compatible endpoint (MinIO, R2, Ceph); default AWS'),
  MEDIA_S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('path-style bucket URLs, which most S3-compatible servers need'),
  MEDIA_S3_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000).describe('per-request timeout'),
};

export interface MediaStoreConfig {
  MEDIA_ENGINE: (typeof MEDIA_ENGINES)[number];
  MEDIA_S3_BUCKET?: string;
  MEDIA_S3_PREFIX: string;
  MEDIA_S3_REGION: string;
  MEDIA_S3_ENDPOINT?: string;
  MEDIA_S3_FORCE_PATH_STYLE: boolean;
  MEDIA_S3_TIMEOUT_MS: number;
}

/** A config refinement: the S3 engine needs its bucket. */
export function checkMediaStoreConfig(config: MediaStoreConfig, ctx: z.RefinementCtx): void {
  if (config.MEDIA_ENGINE === 's3' && !config.MEDIA_S3_BUCKET) {
    ctx.addIssue({ code: 'custom', path: ['MEDIA_S3_BUCKET'], message: 'is required when MEDIA_ENGINE=s3' });
  }
}

export function s3SettingsOf(config: MediaStoreConfig): S3MediaSettings {
  return {
    bucket: config.MEDIA_S3_BUCKET ?? '',
    prefix: config.MEDIA_S3_PREFIX,
    region: config.MEDIA_S3_REGION,
    endpoint: config.MEDIA_S3_ENDPOINT,
    forcePathStyle: config.MEDIA_S3_FORCE_PATH_STYLE,
    requestTimeoutMs: config.MEDIA_S3_TIMEOUT_MS,
  };
}

/** The one place a reader's engine is picked (query-api's writing engines are picked beside it, from the same config). */
export function createMediaReader(config: MediaStoreConfig, folder: string): MediaReader {
  return config.MEDIA_ENGINE === 's3' ? new S3MediaReader(s3SettingsOf(config)) : new FilesystemMediaReader(folder);
}
