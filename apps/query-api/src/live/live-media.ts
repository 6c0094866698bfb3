import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../config';
import { MediaIngest, PictureBacklog } from '../media/media-ingest';
import { MediaLibrary } from '../media/media-library';
import { MEDIA_STORE, type MediaStore } from '../media/media-store.port';
import { PictureQueue } from '../media/picture-queue';
import { keepingStoredMedia } from '../media/stored-media';
import { AD_STORE, type AdRecord, type AdStore, type RejectedRow } from '../store/ad-store.port';
import { liveSettingsFrom } from './live-settings';

/**
 * The media of a live batch, before it is applied (docs/live-data.md, "Media on a line"). A stream line carries one
 * NDJSON line, so it names media by URL only:
 * - a URL the store already holds, on the same ad or on its creative's first ad, keeps what the store holds: its stored
 *   file, its pending picture, or none (a demo picture the seed's budget left out, an http(s) URL loaded while
 *   fetching was off). So a re-sighting, or a new ad of a known creative, queues nothing;
 * - any other `demo:` URL, and an `http(s)` URL when MEDIA_FETCH is on, is applied `pending` and queued for the
 *   picture workers (docs/media.md, "Pictures off the ingest path"): the ad is visible at once, its picture follows.
 *   With fetching off an http(s) entry keeps its URL without a file, as offline ingest does;
 * - a bundle path rejects the line to the dead letters with the entry and the reason, as offline ingest rejects it.
 * The jobs are queued before the batch is applied: a crash between the two re-delivers the batch, whose jobs the
 * workers then find made already.
 */
@Injectable()
export class LiveMedia implements OnApplicationShutdown {
  private readonly library: MediaLibrary;
  private readonly queue: PictureQueue;
  private readonly fetching: boolean;

  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    @Inject(MEDIA_STORE) media: MediaStore,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.library = new MediaLibrary(media);
    const live = liveSettingsFrom(config);
    this.queue = PictureQueue.connect(live.url, live.stream);
    this.fetching = config.MEDIA_FETCH;
  }

  async resolve(records: readonly AdRecord[]): Promise<{ records: AdRecord[]; rejected: RejectedRow[] }> {
    const bare = records.filter((record) => record.media.some((entry) => !entry.stored && !entry.pending));
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
    const later = new PictureBacklog(this.fetching);
    const resolved = await new MediaIngest(this.library, null, undefined, null, later).resolve(carried, known);
    if (later.size) await this.queue.enqueue(later.take());
    return resolved;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close();
  }
}
