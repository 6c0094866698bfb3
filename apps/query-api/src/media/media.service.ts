import { Inject, Injectable } from '@nestjs/common';
import { ServiceError, type MediaFileArgs, type MediaLocation } from '@adintel/contracts';
import { AD_STORE, type AdStore } from '../store/ad-store.port';
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
 * Tells the gateway's media routes which file of the media store a creative's media entry is (the file or its
 * thumbnail). The gateway reads the bytes from the media store itself: they never travel over the transport.
 */
@Injectable()
export class MediaService {
  private readonly remembered = new Map<string, { at: number; media: CreativeFiles }>();

  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    private readonly pictures: PictureCatalogue,
  ) {}

  async locate(args: MediaFileArgs): Promise<MediaLocation> {
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
    return { key: args.variant === 'thumbnail' ? stored.thumbnail_key : stored.key };
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
