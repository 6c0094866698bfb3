import type { Readable } from 'node:stream';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { MEDIA_MIME_TYPES, QueryMessages, ServiceError } from '@adintel/contracts';
import type { MediaReader } from '@adintel/media-store';
import { InjectServiceClient, ServiceClient } from '@adintel/transport';
import type { ByteRange } from './media-range';

export const MEDIA_READER = Symbol('MEDIA_READER');

/** A creative's media file n, or its thumbnail. */
export interface MediaTarget {
  readonly creativeId: string;
  readonly index: number;
  readonly variant: 'file' | 'thumbnail';
}

/** What the file is, whatever part of it travels. */
export interface MediaHead {
  readonly mime: (typeof MEDIA_MIME_TYPES)[number];
  /** The whole file's size, from the media store. */
  readonly size: number;
  /** The content key: the file's strong validator, and its name in the media store. */
  readonly key: string;
}

/**
 * The one place the gateway reaches media: query-api says which file a creative's entry is (it holds the records:
 * unknown, pending or not held are its answers), and the bytes come from the media store itself (the folder query-api
 * writes, or the bucket), read as they are sent. No byte of a file travels over the transport.
 */
@Injectable()
export class MediaFiles implements OnModuleDestroy {
  constructor(
    @InjectServiceClient('query') private readonly query: ServiceClient,
    @Inject(MEDIA_READER) private readonly reader: MediaReader,
  ) {}

  async head(target: MediaTarget): Promise<MediaHead> {
    const { key } = await this.query.send(QueryMessages.locateMedia, { creative_id: target.creativeId, index: target.index, variant: target.variant });
    const file = await this.reader.stat(key);
    if (!file) throw missing();
    // The type comes only from the allowlist (never SVG): the reader derives it from the key, which names it.
    if (!(MEDIA_MIME_TYPES as readonly string[]).includes(file.mime)) throw new Error(`a media key of a type outside the allowlist: ${key}`);
    return { mime: file.mime, size: file.bytes, key };
  }

  /** The file's bytes (or those of `range`, within the file), streamed from the store. */
  async open(head: MediaHead, range?: ByteRange): Promise<Readable> {
    const stream = await this.reader.open(head.key, range);
    if (!stream) throw missing();
    return stream;
  }

  /** The whole file in memory: only for small files a caller has bounded (thumbnails on MCP results). */
  async readWhole(head: MediaHead): Promise<Buffer> {
    return collectWhole(await this.open(head), head.size);
  }

  async onModuleDestroy(): Promise<void> {
    await this.reader.close();
  }

}

const missing = () => ServiceError.of('unavailable', 'the media file is missing from the media store', { retry_after_seconds: 5 });

/** A whole file in one buffer of its size (one copy: no parts to join). */
export async function collectWhole(body: Readable, size: number): Promise<Buffer> {
  const whole = Buffer.alloc(size);
  let at = 0;
  for await (const part of body) {
    const chunk = part as Buffer;
    if (at + chunk.length > size) {
      body.destroy();
      throw new Error(`a media file grew past its ${size} bytes while it was read`);
    }
    chunk.copy(whole, at);
    at += chunk.length;
  }
  if (at !== size) throw new Error(`a media file was ${at} bytes, not ${size}`);
  return whole;
}
