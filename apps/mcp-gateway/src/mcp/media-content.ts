import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  QueryMessages,
  ServiceError,
  type AdDetail,
  type AdsPage,
  type Advertiser,
  type Creative,
  type Media,
  type MediaFile,
  type MediaFileArgs,
} from '@adintel/contracts';
import { APP_CONFIG } from '@adintel/config';
import { ADVERTISER_CANDIDATES, THUMBNAILS_META, VIEW_THUMBNAIL_LIMITS, type ViewThumbnail } from '@adintel/mcp-views';
import type { ToolDefinition } from '@adintel/tool-catalogue';
import { InjectServiceClient, ServiceClient } from '@adintel/transport';
import type { ImageContent, ResourceLink } from '@modelcontextprotocol/server';
import type { AppConfig } from '../config';
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
   * The record does not say a file's MIME type, so a one-byte read of each file (no charge: not the public route) tells it.
   */
  private async recordMedia(media: readonly Media[], requestId: string): Promise<MediaAttachments> {
    const stored = media.flatMap((entry): StoredEntry[] => {
      const match = entry.thumbnail_url ? THUMBNAIL_PATH.exec(entry.thumbnail_url) : null;
      return match ? [{ entry, creativeId: decodeURIComponent(match[1] as string), index: Number(match[2]) }] : [];
    });
    if (stored.length === 0) return NO_MEDIA;
    const [thumbnails, heads] = await Promise.all([
      Promise.all(stored.slice(0, RECORD_IMAGE_LIMITS.count).map((s) => this.fetch({ creative_id: s.creativeId, index: s.index, variant: 'thumbnail' }, requestId))),
      Promise.all(stored.map((s) => this.fetch({ creative_id: s.creativeId, index: s.index, variant: 'file', range: { start: 0, end: 0 } }, requestId))),
    ]);
    const images: ImageContent[] = withinBytes(thumbnails, RECORD_IMAGE_LIMITS.bytes).map((file) => ({ type: 'image', data: file.body_base64, mimeType: file.mime }));
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

  /** One read from query-api; undefined when it fails. */
  private async fetch(args: MediaFileArgs, requestId: string): Promise<MediaFile | undefined> {
    try {
      return await this.query.send(QueryMessages.getMedia, args);
    } catch (error) {
      const code = error instanceof ServiceError ? error.code : 'internal';
      this.logger.warn({ msg: 'media not fetched; the result goes without it', request_id: requestId, creative_id: args.creative_id, index: args.index, variant: args.variant, code, error: (error as Error).message });
      return undefined;
    }
  }
}

/** The fetched files, in order, while their bytes stay within the bound (a failed fetch is skipped). */
function withinBytes(files: readonly (MediaFile | undefined)[], limit: number): MediaFile[] {
  const kept: MediaFile[] = [];
  let bytes = 0;
  for (const file of files) {
    if (!file || bytes + file.size > limit) continue;
    bytes += file.size;
    kept.push(file);
  }
  return kept;
}

const distinct = (ids: readonly string[]) => [...new Set(ids)];
