import { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { mediaFilePath, mimeOfKey, type ByteRange } from './media-key';
import type { MediaFileInfo, MediaReader } from './media-reader.port';

export interface S3MediaSettings {
  bucket: string;
  /** Key prefix inside the bucket (e.g. `media/`); may be empty. */
  prefix: string;
  region: string;
  /** An S3-compatible endpoint (MinIO, R2, Ceph...); absent: AWS itself. */
  endpoint?: string;
  /** Path-style URLs (`endpoint/bucket/key`), which most S3-compatible servers need. */
  forcePathStyle: boolean;
  requestTimeoutMs: number;
}

/**
 * Objects `<prefix><first two hex digits>/<key>` in one bucket. Credentials come from the SDK's default chain
 * (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a web identity, an instance role): this file never reads them. A read
 * is a `GetObject` whose body is passed on as it arrives (with `Range` for a part), never collected.
 */
export class S3MediaReader implements MediaReader {
  readonly engine: 'filesystem' | 's3' = 's3';
  protected readonly client: S3Client;

  constructor(protected readonly settings: S3MediaSettings) {
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      maxAttempts: 3,
      requestHandler: { requestTimeout: settings.requestTimeoutMs, connectionTimeout: settings.requestTimeoutMs },
    });
  }

  protected objectKey(key: string): string {
    return `${this.settings.prefix}${mediaFilePath(key)}`;
  }

  async stat(key: string): Promise<MediaFileInfo | null> {
    const mime = mimeOfKey(key);
    if (!mime) return null;
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }));
      return { key, mime, bytes: head.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async open(key: string, range?: ByteRange): Promise<Readable | null> {
    if (!mimeOfKey(key)) return null;
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      // On Node the SDK's body is a Readable (an IncomingMessage); anything else would be a runtime we do not run on.
      if (!(object.Body instanceof Readable)) throw new Error('the S3 client answered a body that is not a Node stream');
      return object.Body;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

export function isNotFound(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.name === 'NotFound' || error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404);
}
