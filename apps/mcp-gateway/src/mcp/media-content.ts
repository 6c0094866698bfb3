import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  QueryMessages,
  ServiceError,
  type AdDetail,
  type AdsPage,
  type Advertiser,
  type Creative,
  type Media,
} from '@adintel/contracts';
import { APP_CONFIG } from '@adintel/config';
import { ADVERTISER_CANDIDATES, THUMBNAILS_META, VIEW_THUMBNAIL_LIMITS, type ViewThumbnail } from '@adintel/mcp-views';
import type { ToolDefinition } from '@adintel/tool-catalogue';
import { InjectServiceClient, ServiceClient } from '@adintel/transport';
import type { ImageContent, ResourceLink } from '@modelcontextprotocol/server';
import type { AppConfig } from '../config';
import { MediaFiles, type MediaHead, type MediaTarget } from '../media/media-files';
import { mediaUrl } from '../media/media-target';

/**
 * Bounds of the pictures get_ad and get_creative hand the model (docs/media.md, "Pictures on MCP"): the first
 * entries' thumbnails, at most this many blocks and bytes (decoded) in all; the other entries stay as links.
 */
export const RECORD_IMAGE_LIMITS = { count: 4, bytes: 256 * 1024 } as const;

/** What a tool result carries besides its JSON: content blocks after the text, and fields of its `_meta`. */
export interface MediaAttachments {
  readonly content: readonly (ImageContent | ResourceLink)[];
  readonly meta: Readonly<Record<string, unknown>>;
}

export const NO_MEDIA: MediaAttachments = { content: [], meta: {} };

/** How many of an advertiser's most popular ads are looked at to find its creatives with a picture. */
const ADVERTISER_ADS_LOOKED_AT = 20;

/** A media entry with a stored file: its thumbnail URL names the creative and index the file is kept under. */
const THUMBNAIL_PATH = /\/api\/v1\/creo\/([^/]+)\/media\/(\d+)\/thumbnail$/;

interface StoredEntry {
  readonly entry: Media;
  readonly creativeId: string;
  readonly index: number;
}

/**
 * The pictures that ride with a tool result (thumbnails are free: product-decisions.md, "Media").
 *
 * - get_ad, get_creative: thumbnails as `image` blocks for the model, and one `resource_link` per stored file, fetched
 *   from query-api in this one place, in parallel, after the call was charged. A picture that cannot be fetched is
 *   left out and logged with the request id: it never fails the call or changes its receipt.
 * - views (MCP Apps): the thumbnail URIs of search_ads rows' and the advertiser's creatives in `_meta` (which hosts
 *   give the view and not the model); a view reads the ones it shows through its host, so a client without views
 *   pays nothing for them (docs/media.md, "Pictures in the views").
 */
@Injectable()
export class MediaContent {
  private readonly logger = new Logger('MediaContent');

  constructor(
    @InjectServiceClient('query') private readonly query: ServiceClient,
    private readonly files: MediaFiles,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Never throws: whatever goes wrong here leaves the result without pictures. */
  async attachments(tool: ToolDefinition, result: unknown, requestId: string): Promise<MediaAttachments> {
    try {
      if (tool.message === QueryMessages.getAd) return await this.recordMedia((result as AdDetail).media, requestId);
      if (tool.message === QueryMessages.getCreative) return await this.recordMedia((result as Creative).media, requestId);
      if (tool.view === 'ad-gallery') return this.galleryThumbnails(result as AdsPage);
      if (tool.view === 'advertiser-card') return await this.advertiserThumbnails(result as Advertiser);
    } catch (error) {
      this.logger.warn({ msg: 'pictures left out of the result', request_id: requestId, tool: tool.name, error: (error as Error).message });
    }
    return NO_MEDIA;
  }

  /**
   * The first stored entries' thumbnails as image blocks (within RECORD_IMAGE_LIMITS), then a link per stored file.
   * The record does not say a file's MIME type: its key in the media store (asked of query-api, no charge: not the
   * public route) names it. Thumbnails are read from the media store, within RECORD_IMAGE_LIMITS by their stat.
   */
  private async recordMedia(media: readonly Media[], requestId: string): Promise<MediaAttachments> {
    const stored = media.flatMap((entry): StoredEntry[] => {
      const match = entry.thumbnail_url ? THUMBNAIL_PATH.exec(entry.thumbnail_url) : null;
      return match ? [{ entry, creativeId: decodeURIComponent(match[1] as string), index: Number(match[2]) }] : [];
    });
    if (stored.length === 0) return NO_MEDIA;
    const [thumbnailHeads, heads] = await Promise.all([
      Promise.all(stored.slice(0, RECORD_IMAGE_LIMITS.count).map((s) => this.head({ creativeId: s.creativeId, index: s.index, variant: 'thumbnail' }, requestId))),
      Promise.all(stored.map((s) => this.head({ creativeId: s.creativeId, index: s.index, variant: 'file' }, requestId))),
    ]);
    const thumbnails = await Promise.all(withinBytes(thumbnailHeads, RECORD_IMAGE_LIMITS.bytes).map((head) => this.read(head, requestId)));
    const images: ImageContent[] = thumbnails.flatMap((file) => (file ? [{ type: 'image' as const, data: file.bytes.toString('base64'), mimeType: file.head.mime }] : []));
    const links = stored.map(({ entry, creativeId, index }, i): ResourceLink => {
      const mimeType = heads[i]?.mime;
      return {
        type: 'resource_link',
        uri: entry.url,
        name: `${creativeId}/media/${index}`,
        title: `Creative ${creativeId}, ${entry.type} ${index + 1} (${entry.width}x${entry.height})`,
        description: 'the full file; reading it (resources/read) costs 10 tokens',
        ...(mimeType && { mimeType }),
        ...(entry.bytes !== null && { size: entry.bytes }),
      };
    });
    return { content: [...images, ...links], meta: {} };
  }

  /** The thumbnail URI of each distinct creative of the page with a picture, in row order, within VIEW_THUMBNAIL_LIMITS. */
  private galleryThumbnails(page: AdsPage): MediaAttachments {
    // With `fields`, rows may lack creative_id (no picture then) or media_count (then the view's read tells).
    const rows = page.data as Partial<AdsPage['data'][number]>[];
    const creatives = distinct(rows.flatMap((row) => (row.creative_id && row.media_count !== 0 && row.creative_format !== 'text' ? [row.creative_id] : [])));
    return this.viewThumbnails(creatives.slice(0, VIEW_THUMBNAIL_LIMITS.count));
  }

  /**
   * The advertiser's most popular creatives that may have a picture, from its most popular ads (one query-api search,
   * not charged: the card's decoration). The record does not name its creatives, and the view could learn them only
   * through a paid search_ads; which of them has a stored picture is left to the view's reads (it shows the first
   * ADVERTISER_THUMBNAILS that read, of at most ADVERTISER_CANDIDATES).
   */
  private async advertiserThumbnails(advertiser: Advertiser): Promise<MediaAttachments> {
    const ads = await this.query.send(QueryMessages.searchAds, { advertiser_id: advertiser.id, sort_by: 'most_popular', limit: ADVERTISER_ADS_LOOKED_AT });
    const creatives = distinct(ads.data.flatMap((ad) => (ad.media_count > 0 && ad.creative_format !== 'text' ? [ad.creative_id] : [])));
    return this.viewThumbnails(creatives.slice(0, ADVERTISER_CANDIDATES));
  }

  /** The URIs of these creatives' first thumbnails in `_meta` (resources/read of one is free): no bytes are read here. */
  private viewThumbnails(creativeIds: readonly string[]): MediaAttachments {
    if (creativeIds.length === 0) return NO_MEDIA;
    const thumbnails = creativeIds.map((id): ViewThumbnail => ({ creative_id: id, uri: mediaUrl(this.config.PUBLIC_BASE_URL, { creativeId: id, index: 0, variant: 'thumbnail' }) }));
    return { content: [], meta: { [THUMBNAILS_META]: thumbnails } };
  }

  /** Which file, its type and size (query-api names it, the media store sizes it); undefined when that fails. */
  private async head(target: MediaTarget, requestId: string): Promise<MediaHead | undefined> {
    try {
      return await this.files.head(target);
    } catch (error) {
      this.warn({ creative_id: target.creativeId, index: target.index, variant: target.variant }, requestId, error);
      return undefined;
    }
  }

  /** A thumbnail's bytes from the media store; undefined when the read fails. */
  private async read(head: MediaHead, requestId: string): Promise<{ head: MediaHead; bytes: Buffer } | undefined> {
    try {
      return { head, bytes: await this.files.readWhole(head) };
    } catch (error) {
      this.warn({ key: head.key }, requestId, error);
      return undefined;
    }
  }

  private warn(what: object, requestId: string, error: unknown) {
    const code = error instanceof ServiceError ? error.code : 'internal';
    this.logger.warn({ msg: 'media not read; the result goes without it', request_id: requestId, ...what, code, error: (error as Error).message });
  }
}

/** The files, in order, while their sizes stay within the bound (one whose head failed is skipped). */
function withinBytes(files: readonly (MediaHead | undefined)[], limit: number): MediaHead[] {
  const kept: MediaHead[] = [];
  let bytes = 0;
  for (const file of files) {
    if (!file || bytes + file.size > limit) continue;
    bytes += file.size;
    kept.push(file);
  }
  return kept;
}

const distinct = (ids: readonly string[]) => [...new Set(ids)];
