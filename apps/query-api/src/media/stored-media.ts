// The store port owns the media record types (store/record-media.ts); media/ keeps its names for them.
export { keepingStoredMedia, type RecordMedia, type StoredMedia } from '../store/record-media';
