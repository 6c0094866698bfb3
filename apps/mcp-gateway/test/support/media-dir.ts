import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real media folder in query-api's layout (`<2 hex>/<sha256>.<ext>`), for a gateway started with MEDIA_DIR on it:
 * the gateway reads files from the media store itself, so a stand-in query-api names keys that this folder holds.
 */
export class MediaDir {
  readonly path = mkdtempSync(join(tmpdir(), 'gateway-media-'));

  /** Stores the bytes under their content key and returns the key. */
  put(bytes: Buffer, ext: 'png' | 'jpg' | 'webp' | 'gif' | 'mp4'): string {
    const key = `${createHash('sha256').update(bytes).digest('hex')}.${ext}`;
    mkdirSync(join(this.path, key.slice(0, 2)), { recursive: true });
    writeFileSync(join(this.path, key.slice(0, 2), key), bytes);
    return key;
  }

  /** A key the folder does not hold (a file missing from the store). */
  static readonly MISSING = `${'0'.repeat(64)}.webp`;

  close(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}
