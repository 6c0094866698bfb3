import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { clampRange, mediaFilePath, mimeOfKey, type ByteRange } from './media-key';
import type { MediaFileInfo, MediaReader } from './media-reader.port';

/** Files under `<root>/<first two hex digits>/<key>` (query-api's DATA_DIR/media, or a volume both apps mount). */
export class FilesystemMediaReader implements MediaReader {
  readonly engine: 'filesystem' | 's3' = 'filesystem';

  constructor(protected readonly root: string) {}

  protected pathOf(key: string): string {
    return join(this.root, mediaFilePath(key));
  }

  async stat(key: string): Promise<MediaFileInfo | null> {
    const mime = mimeOfKey(key);
    if (!mime) return null;
    try {
      const info = await stat(this.pathOf(key));
      return { key, mime, bytes: info.size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async open(key: string, range?: ByteRange): Promise<Readable | null> {
    if (!mimeOfKey(key)) return null;
    let handle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    if (range) {
      const clamped = clampRange(range, (await handle.stat()).size);
      if (!clamped) {
        await handle.close();
        throw new RangeError(`the range ${range.start}-${range.end} starts past the end of ${key}`);
      }
      range = clamped;
    }
    // The stream closes the handle when it ends or is destroyed.
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async close(): Promise<void> {
    // Nothing held open between calls.
  }
}
