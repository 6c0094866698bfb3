import type { MediaStore } from './media-store.port';
import { sourceDigest, type PictureSource } from './picture-job';
import type { RecordMedia, StoredMedia } from './stored-media';

/**
 * What the picture workers made of one source: its stored file (`done`), a refusal for good (`failed`: the bytes do
 * not decode, a type outside the list, too many failed fetches), or a failure to be tried again (`retrying`, after
 * `retry_at`).
 */
export type PictureRecord =
  | { readonly state: 'done'; readonly media: StoredMedia }
  | { readonly state: 'failed'; readonly reason: string; readonly attempts: number }
  | { readonly state: 'retrying'; readonly reason: string; readonly attempts: number; readonly retry_at: string };

/** A media entry as the reads show it: a pending entry resolved against the catalogue, with why it failed if it did. */
export type ShownMedia = RecordMedia & { failed?: string };

/** Final records remembered in memory (a done or failed record never changes). */
const REMEMBERED = 20_000;

/**
 * The picture catalogue: one record per media source, kept in the media store beside the files (so every query-api
 * replica and every worker sees the same), named by the SHA-256 of the source. The ad records keep their media entry
 * as applied (`pending`): the reads resolve it here, so making a picture never writes to the ad store.
 */
export class PictureCatalogue {
  private readonly final = new Map<string, PictureRecord>();

  constructor(private readonly files: MediaStore) {}

  async get(source: PictureSource): Promise<PictureRecord | null> {
    const name = sourceDigest(source);
    const known = this.final.get(name);
    if (known) return known;
    const body = await this.files.getRecord(name);
    if (body === null) return null;
    const record = JSON.parse(body) as PictureRecord;
    if (record.state !== 'retrying') this.remember(name, record);
    return record;
  }

  put(source: PictureSource, record: PictureRecord): Promise<void> {
    return this.files.putRecord(sourceDigest(source), JSON.stringify(record));
  }

  /** The entries, each pending one with its stored file once made, or the reason it failed; the others as they are. */
  async resolve(media: readonly RecordMedia[]): Promise<ShownMedia[]> {
    if (!media.some((entry) => entry.pending)) return [...media];
    return Promise.all(
      media.map(async (entry): Promise<ShownMedia> => {
        if (!entry.pending) return entry;
        const record = await this.get(entry);
        if (record?.state === 'done') {
          const { pending: _pending, ...rest } = entry;
          return { ...rest, stored: record.media };
        }
        return record?.state === 'failed' ? { ...entry, failed: record.reason } : entry;
      }),
    );
  }

  private remember(name: string, record: PictureRecord): void {
    this.final.set(name, record);
    if (this.final.size > REMEMBERED) this.final.delete(this.final.keys().next().value as string);
  }
}
