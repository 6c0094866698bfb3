export { clampRange, MEDIA_FILE_TYPES, MEDIA_KEY, mediaFilePath, mimeOfKey, type ByteRange, type MediaFileMime } from './media-key';
export type { MediaFileInfo, MediaReader } from './media-reader.port';
export { FilesystemMediaReader } from './filesystem-media-reader';
export { isNotFound, S3MediaReader, type S3MediaSettings } from './s3-media-reader';
export { checkMediaStoreConfig, createMediaReader, mediaStoreConfigShape, s3SettingsOf, type MediaStoreConfig } from './media-store-config';
