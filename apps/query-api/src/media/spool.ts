import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/** A file written to disk as it arrives, with its SHA-256 (its content key) and its first bytes (its type). */
export interface SpooledFile {
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
  /** The first 16 bytes (an MP4 is recognised by them). */
  readonly head: Buffer;
}

/**
 * Takes a large body (a video: up to 200 MB) chunk by chunk to a file under `dir`, hashing as it goes, so no process
 * ever holds it whole (docs/media.md, "Fetching http(s) media"). The media store then moves the file in under its
 * content key (`putFile`); `discard` removes what is left.
 */
export class Spool {
  private readonly hash = createHash('sha256');
  private head = Buffer.alloc(0);
  private bytes = 0;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  static async create(dir: string): Promise<Spool> {
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${randomBytes(12).toString('hex')}.part`);
    return new Spool(path, await open(path, 'wx'));
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.hash.update(chunk);
    if (this.head.length < 16) this.head = Buffer.concat([this.head, Buffer.from(chunk.subarray(0, 16 - this.head.length))]);
    await this.handle.write(chunk);
    this.bytes += chunk.byteLength;
  }

  async finish(): Promise<SpooledFile> {
    await this.handle.close();
    return { path: this.path, bytes: this.bytes, sha256: this.hash.digest('hex'), head: this.head };
  }

  async discard(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await rm(this.path, { force: true });
  }
}
