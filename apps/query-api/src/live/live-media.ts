import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import type { PublicFetcher } from '@adintel/public-fetch';
import type { AppConfig } from '../config';
import { createMediaFetcher } from '../media/media-fetch';
import { MediaIngest } from '../media/media-ingest';
import { MediaLibrary } from '../media/media-library';
import { MEDIA_STORE, type MediaStore } from '../media/media-store.port';
import { keepingStoredMedia } from '../media/stored-media';
import { AD_STORE, type AdRecord, type AdStore, type RejectedRow } from '../store/ad-store.port';

/**
 * The media of a live batch, before it is applied (docs/live-data.md, "Media on a line"). A stream line carries one
 * NDJSON line, so it names media by URL only:
 * - a URL the store already holds, on the same ad or on its creative's first ad, keeps what the store holds: its stored
 *   file, or none (a demo picture the seed's budget left out, an http(s) URL loaded while fetching was off). So a
 *   re-sighting, or a new ad of a known creative, renders and fetches nothing;
 * - any other `demo:` URL is rendered, as the seed does, and an `http(s)` URL fetched when MEDIA_FETCH is on
 *   (libs/public-fetch's guards); with it off the entry keeps its URL without a file, as offline ingest does;
 * - a URL that cannot be resolved (a fetch refused or failed, a picture that does not decode, a bundle path) rejects
 *   the line to the dead letters with the entry and the reason, as offline ingest rejects it: applying it without the
 *   file would leave the ad without its picture for good, since later sightings of the URL keep what the store holds,
 *   while a dead letter can be sent again (`dead-letters --resend`) once the file can be had.
 */
@Injectable()
export class LiveMedia implements OnApplicationShutdown {
  private readonly library: MediaLibrary;
  private readonly fetcher: PublicFetcher | null;

  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    @Inject(MEDIA_STORE) media: MediaStore,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.library = new MediaLibrary(media);
    this.fetcher = createMediaFetcher(config);
  }

  async resolve(records: readonly AdRecord[]): Promise<{ records: AdRecord[]; rejected: RejectedRow[] }> {
    const bare = records.filter((record) => record.media.some((entry) => !entry.stored));
    if (!bare.length) return { records: [...records], rejected: [] };
    const held = await this.store.heldMedia({
      adIds: bare.map((record) => record.id),
      creativeIds: [...new Set(bare.map((record) => record.creative_id))],
    });
    const known = new Set(held.map((entry) => entry.url));
    const carried = records.map((record) => {
      const media = keepingStoredMedia(record.media, held);
      return media === record.media ? record : { ...record, media };
    });
    // One ingest per batch: a source shared by several lines of the batch is resolved once, and nothing is kept after.
    return new MediaIngest(this.library, null, undefined, this.fetcher).resolve(carried, known);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.fetcher?.close();
  }
}
