import { GetObjectCommand, HeadBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { isNotFound, S3MediaReader } from '@adintel/media-store';
import { mediaKeyOf } from './media-key';
import { createReadStream } from 'node:fs';
import { clampRange, MEDIA_KEY, MEDIA_TYPES, mimeOfKey, RECORD_NAME, type ByteRange, type MediaMime, type MediaRead, type MediaStore, type StoredFile } from './media-store.port';

export type { S3MediaSettings } from '@adintel/media-store';

/**
 * Objects `<prefix><first two hex digits>/<key>` in one bucket, with their Content-Type. Credentials come from the
 * SDK's default chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a web identity, an instance role): this file never
 * reads them. The layout and the reads (`stat`, `open`) are the shared reader's (`@adintel/media-store`), which the
 * gateway serves from. Content keys never change, so a put first asks whether the object exists and skips the upload.
 */
export class S3MediaStore extends S3MediaReader implements MediaStore {
  override readonly engine = 's3' as const;

  async put(bytes: Buffer, mime: MediaMime): Promise<StoredFile> {
    const key = mediaKeyOf(bytes, mime);
    const existing = await this.stat(key);
    if (existing) return existing;
    await this.client.send(
      new PutObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key), Body: bytes, ContentType: mime, ContentLength: bytes.length }),
    );
    return { key, mime, bytes: bytes.length };
  }

  async putFile(path: string, mime: MediaMime, sha256: string, bytes: number): Promise<StoredFile> {
    const key = `${sha256}.${MEDIA_TYPES[mime]}`;
    const existing = await this.stat(key);
    if (existing) return existing;
    // Streamed from the file with its length, never read whole.
    await this.client.send(
      new PutObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key), Body: createReadStream(path), ContentType: mime, ContentLength: bytes }),
    );
    return { key, mime, bytes };
  }

  async get(key: string, range?: ByteRange): Promise<MediaRead | null> {
    if (!MEDIA_KEY.test(key)) return null;
    const mime = mimeOfKey(key) as MediaMime;
    let size: number | null = null;
    if (range) {
      const file = await this.stat(key);
      if (!file) return null;
      size = file.bytes;
      const clamped = clampRange(range, size);
      if (!clamped) return { key, mime, bytes: size, body: Buffer.alloc(0), range: null };
      range = clamped;
    }
    try {
      const object = await this.client.send(
        new GetObjectCommand({
          Bucket: this.settings.bucket,
          Key: this.objectKey(key),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      const body = Buffer.from((await object.Body?.transformToByteArray()) ?? new Uint8Array());
      return { key, mime, bytes: size ?? body.length, body, range: range ?? null };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /** Records are objects `<prefix>records/<first two hex digits>/<name>.json`. */
  private recordKey(name: string): string {
    return `${this.settings.prefix}records/${name.slice(0, 2)}/${name}.json`;
  }

  async putRecord(name: string, body: string): Promise<void> {
    if (!RECORD_NAME.test(name)) throw new Error(`not a record name: ${name}`);
    const bytes = Buffer.from(body);
    await this.client.send(
      new PutObjectCommand({ Bucket: this.settings.bucket, Key: this.recordKey(name), Body: bytes, ContentType: 'application/json', ContentLength: bytes.length }),
    );
  }

  async getRecord(name: string): Promise<string | null> {
    if (!RECORD_NAME.test(name)) return null;
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.recordKey(name) }));
      return (await object.Body?.transformToString('utf8')) ?? null;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async ping(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.settings.bucket }));
  }
}
