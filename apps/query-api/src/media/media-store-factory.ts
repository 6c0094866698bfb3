import { join } from 'node:path';
import { s3SettingsOf } from '@adintel/media-store';
import type { AppConfig } from '../config';
import { FilesystemMediaStore } from './filesystem-media-store';
import type { MediaStore } from './media-store.port';
import { S3MediaStore } from './s3-media-store';

export type MediaConfig = Pick<
  AppConfig,
  | 'DATA_DIR'
  | 'MEDIA_ENGINE'
  | 'MEDIA_S3_BUCKET'
  | 'MEDIA_S3_PREFIX'
  | 'MEDIA_S3_REGION'
  | 'MEDIA_S3_ENDPOINT'
  | 'MEDIA_S3_FORCE_PATH_STYLE'
  | 'MEDIA_S3_TIMEOUT_MS'
>;

/** The one place that picks the media engine (the gateway's reader is picked from the same variables: `createMediaReader`). */
export function createMediaStore(config: MediaConfig): MediaStore {
  if (config.MEDIA_ENGINE === 's3') {
    return new S3MediaStore(s3SettingsOf(config));
  }
  return new FilesystemMediaStore(mediaDirIn(config.DATA_DIR));
}

export function mediaDirIn(dataDir: string): string {
  return join(dataDir, 'media');
}
