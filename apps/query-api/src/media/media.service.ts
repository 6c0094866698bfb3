import { Inject, Injectable } from '@nestjs/common';
import { MEDIA_CHUNK_BYTES, ServiceError, type MediaFile, type MediaFileArgs } from '@adintel/contracts';
import { AD_STORE, type AdStore } from '../store/ad-store.port';
import { clampRange, MEDIA_STORE, type MediaStore } from './media-store.port';
import { PictureCatalogue } from './picture-catalogue';
import type { StoredMedia } from './stored-media';

/** A creative's files by entry (undefined: no file), and the entries whose file a picture worker is still making. */
interface CreativeFiles {
  stored: (StoredMedia | undefined)[];
  pending: ReadonlySet<number>;
}

/** Creatives whose stored media are remembered, and for how long (thumbnails of a gallery come in bursts). */
const REMEMBERED = 5_000;
const REMEMBER_MS = 60_000;

/**
 * Reads a creative's media files for the gateway's media route: the file or its thumbnail, whole or a byte range,
 * at most MEDIA_CHUNK_BYTES per answer (a larger file is read in ranges).
 */
@Injectable()
export class MediaService {
  private readonly remembered = new Map<string, { at: number; media: CreativeFiles }>();

  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    @Inject(MEDIA_STORE) private readonly files: MediaStore,
    private readonly pictures: PictureCatalogue,
  ) {}

  async file(args: MediaFileArgs): Promise<MediaFile> {
    const media = await this.mediaOf(args.creative_id);
    if (args.index >= media.stored.length) throw ServiceError.notFound('media', `${args.creative_id}/${args.index}`);
    const stored = media.stored[args.index];
    if (!stored) {
      const pending = media.pending.has(args.index);
      throw ServiceError.of(
        'not_found',
        `media ${args.index} of creative ${JSON.stringify(args.creative_id)} is ${pending ? 'pending: a picture worker is making it, ask again in a minute' : 'not held by this service'}`,
      );
    }
    const key = args.variant === 'thumbnail' ? stored.thumbnail_key : stored.key;
    const file = await this.files.stat(key);
    if (!file) throw ServiceError.of('unavailable', 'the media file is missing from the media store');
    let range = args.range ? clampRange(args.range, file.bytes) : null;
    if (args.range && !range) throw ServiceError.invalidArgument([{ field: 'range', message: `must start before the end of the file (${file.bytes} bytes)` }]);
    if (range && range.end - range.start + 1 > MEDIA_CHUNK_BYTES) range = { start: range.start, end: range.start + MEDIA_CHUNK_BYTES - 1 };
    if (!range && file.bytes > MEDIA_CHUNK_BYTES) range = { start: 0, end: MEDIA_CHUNK_BYTES - 1 };
    const read = await this.files.get(key, range ?? undefined);
    if (!read) throw ServiceError.of('unavailable', 'the media file is missing from the media store');
    return { mime: read.mime, size: read.bytes, etag: key, range: read.range, body_base64: read.body.toString('base64') };
  }

  private async mediaOf(creativeId: string): Promise<CreativeFiles> {
    const hit = this.remembered.get(creativeId);
    if (hit && Date.now() - hit.at < REMEMBER_MS) return hit.media;
    const creative = await this.store.getCreative(creativeId);
    if (!creative) throw ServiceError.notFound('creative', creativeId);
    const shown = await this.pictures.resolve(creative.media);
    const media = { stored: shown.map((m) => m.stored), pending: new Set(shown.flatMap((m, index) => (m.pending && m.failed === undefined ? [index] : []))) };
    // A creative whose picture is still being made is not remembered: its file is read as soon as it is there.
    if (media.pending.size) return media;
    this.remembered.set(creativeId, { at: Date.now(), media });
    if (this.remembered.size > REMEMBERED) this.remembered.delete(this.remembered.keys().next().value as string);
    return media;
  }
}
