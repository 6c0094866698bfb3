import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMediaReader, FilesystemMediaReader, mimeOfKey, S3MediaReader } from '../src';

/** The read side on a real folder (both engines also run query-api's media store contract, which extends them). */
describe('the media store reader', () => {
  const root = mkdtempSync(join(tmpdir(), 'media-reader-'));
  const bytes = Buffer.from(Array.from({ length: 3_000 }, (_, i) => i % 251));
  const key = `${createHash('sha256').update(bytes).digest('hex')}.gif`;
  mkdirSync(join(root, key.slice(0, 2)));
  writeFileSync(join(root, key.slice(0, 2), key), bytes);
  writeFileSync(join(root, 'secret.txt'), 'not media');
  const reader = new FilesystemMediaReader(root);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const collect = async (stream: NodeJS.ReadableStream | null) => {
    if (!stream) return null;
    const parts: Buffer[] = [];
    for await (const part of stream) parts.push(part as Buffer);
    return Buffer.concat(parts);
  };

  it('stats and streams a file under <2 hex>/<key>, whole or a clamped range', async () => {
    expect(await reader.stat(key)).toEqual({ key, mime: 'image/gif', bytes: 3_000 });
    expect((await collect(await reader.open(key)))?.equals(bytes)).toBe(true);
    expect((await collect(await reader.open(key, { start: 2_990, end: 9_999 })))?.equals(bytes.subarray(2_990))).toBe(true);
    await expect(reader.open(key, { start: 3_000, end: 3_001 })).rejects.toThrow(RangeError);
  });

  it('reads content keys only: any other name is absent, never a path', async () => {
    for (const name of ['secret.txt', '../secret.txt', `${'a'.repeat(64)}.svg`, `${'A'.repeat(64)}.gif`]) {
      expect(mimeOfKey(name)).toBeNull();
      expect(await reader.stat(name)).toBeNull();
      expect(await reader.open(name)).toBeNull();
    }
    expect(await reader.stat(`${'0'.repeat(64)}.gif`)).toBeNull();
  });

  it('picks its engine from the shared variables', () => {
    const config = { MEDIA_ENGINE: 'filesystem' as const, MEDIA_S3_PREFIX: 'media/', MEDIA_S3_REGION: 'us-east-1', MEDIA_S3_FORCE_PATH_STYLE: false, MEDIA_S3_TIMEOUT_MS: 1_000 };
    expect(createMediaReader(config, root)).toBeInstanceOf(FilesystemMediaReader);
    const s3 = createMediaReader({ ...config, MEDIA_ENGINE: 's3', MEDIA_S3_BUCKET: 'bucket' }, root);
    expect(s3).toBeInstanceOf(S3MediaReader);
    return s3.close();
  });
});
