import { copyFile, mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { FilesystemMediaReader } from '@adintel/media-store';
import { mediaKeyOf } from './media-key';
import { clampRange, MEDIA_KEY, MEDIA_TYPES, mimeOfKey, RECORD_NAME, type ByteRange, type MediaMime, type MediaRead, type MediaStore, type StoredFile } from './media-store.port';

/**
 * Files under `<root>/<first two hex digits>/<key>` (the layout and the reads, `stat` and `open`, are the shared
 * reader's, which the gateway serves from): content keys never change, so a file once written is never rewritten; a
 * write goes to a temporary name first and is renamed, so a reader never sees half a file.
 */
export class FilesystemMediaStore extends FilesystemMediaReader implements MediaStore {
  override readonly engine = 'filesystem' as const;

  async put(bytes: Buffer, mime: MediaMime): Promise<StoredFile> {
    const key = mediaKeyOf(bytes, mime);
    const file = this.pathOf(key);
    const existing = await this.stat(key);
    if (existing) return existing;
    await mkdir(join(this.root, key.slice(0, 2)), { recursive: true });
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, file);
    return { key, mime, bytes: bytes.length };
  }

  async putFile(path: string, mime: MediaMime, sha256: string, bytes: number): Promise<StoredFile> {
    const key = `${sha256}.${MEDIA_TYPES[mime]}`;
    const existing = await this.stat(key);
    if (existing) return existing;
    await mkdir(join(this.root, key.slice(0, 2)), { recursive: true });
    const temporary = `${this.pathOf(key)}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await rename(path, temporary);
    } catch (error) {
      // Another filesystem (a spool outside the media root): copied, then the spool file removed.
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      await copyFile(path, temporary);
      await rm(path, { force: true });
    }
    await rename(temporary, this.pathOf(key));
    return { key, mime, bytes };
  }

  async get(key: string, range?: ByteRange): Promise<MediaRead | null> {
    if (!MEDIA_KEY.test(key)) return null;
    let handle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    try {
      const size = (await handle.stat()).size;
      const mime = mimeOfKey(key) as MediaMime;
      if (!range) return { key, mime, bytes: size, body: await handle.readFile(), range: null };
      const clamped = clampRange(range, size);
      if (!clamped) return { key, mime, bytes: size, body: Buffer.alloc(0), range: null };
      const body = Buffer.alloc(clamped.end - clamped.start + 1);
      await handle.read(body, 0, body.length, clamped.start);
      return { key, mime, bytes: size, body, range: clamped };
    } finally {
      await handle.close();
    }
  }

  /** Records under `<root>/records/<first two hex digits>/<name>.json`, written to a temporary name and renamed. */
  async putRecord(name: string, body: string): Promise<void> {
    if (!RECORD_NAME.test(name)) throw new Error(`not a record name: ${name}`);
    const dir = join(this.root, 'records', name.slice(0, 2));
    await mkdir(dir, { recursive: true });
    const temporary = join(dir, `${name}.${randomBytes(6).toString('hex')}.tmp`);
    await writeFile(temporary, body);
    await rename(temporary, join(dir, `${name}.json`));
  }

  async getRecord(name: string): Promise<string | null> {
    if (!RECORD_NAME.test(name)) return null;
    try {
      return await readFile(join(this.root, 'records', name.slice(0, 2), `${name}.json`), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async ping(): Promise<void> {
    await mkdir(this.root, { recursive: true });
  }

}
