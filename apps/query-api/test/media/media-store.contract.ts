/**
 * The engine-agnostic contract of the MediaStore port. Every engine runs it: media-store.spec.ts runs the filesystem
 * engine and the S3 engine (against the S3 double of test/support/s3-double.ts).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MediaStore } from '../../src/media/media-store.port';

export interface MediaStoreUnderTest {
  store: MediaStore;
  close(): Promise<void>;
}

export function describeMediaStoreContract(engine: string, open: () => Promise<MediaStoreUnderTest>): void {
  describe(`MediaStore contract: ${engine}`, () => {
    let subject: MediaStoreUnderTest;
    beforeAll(async () => {
      subject = await open();
      await subject.store.ping();
    });
    afterAll(() => subject.close());

    const bytes = Buffer.from(Array.from({ length: 5_000 }, (_, i) => (i * 7) % 256));

    it('stores bytes under their SHA-256 and the extension of their type, and gives them back', async () => {
      const stored = await subject.store.put(bytes, 'image/png');
      expect(stored).toEqual({ key: `${createHash('sha256').update(bytes).digest('hex')}.png`, mime: 'image/png', bytes: 5_000 });
      const read = await subject.store.get(stored.key);
      expect(read?.body.equals(bytes)).toBe(true);
      expect(read).toMatchObject({ key: stored.key, mime: 'image/png', bytes: 5_000, range: null });
      expect(await subject.store.stat(stored.key)).toEqual(stored);
    });

    it('stores the same bytes once (the same key), and the same bytes as another type under another key', async () => {
      const first = await subject.store.put(bytes, 'video/mp4');
      const again = await subject.store.put(Buffer.from(bytes), 'video/mp4');
      expect(again).toEqual(first);
      expect(first.key.endsWith('.mp4')).toBe(true);
    });

    it('reads a byte range, clamping its end to the file', async () => {
      const { key } = await subject.store.put(bytes, 'video/mp4');
      const part = await subject.store.get(key, { start: 10, end: 19 });
      expect(part?.range).toEqual({ start: 10, end: 19 });
      expect(part?.body.equals(bytes.subarray(10, 20))).toBe(true);
      expect(part?.bytes).toBe(5_000);
      const tail = await subject.store.get(key, { start: 4_990, end: 9_999 });
      expect(tail?.range).toEqual({ start: 4_990, end: 4_999 });
      expect(tail?.body.equals(bytes.subarray(4_990))).toBe(true);
      const past = await subject.store.get(key, { start: 5_000, end: 5_010 });
      expect(past?.body.length).toBe(0);
      expect(past?.range).toBeNull();
    });

    it('streams a file or a range of it (the shared reader the gateway serves from), and nothing for an absent key', async () => {
      const { key } = await subject.store.put(bytes, 'video/mp4');
      const collect = async (stream: NodeJS.ReadableStream | null) => {
        if (!stream) return null;
        const parts: Buffer[] = [];
        for await (const part of stream) parts.push(part as Buffer);
        return Buffer.concat(parts);
      };
      expect((await collect(await subject.store.open(key)))?.equals(bytes)).toBe(true);
      expect((await collect(await subject.store.open(key, { start: 4_990, end: 4_999 })))?.equals(bytes.subarray(4_990))).toBe(true);
      expect(await subject.store.open(`${'0'.repeat(64)}.png`)).toBeNull();
      expect(await subject.store.open('../../etc/passwd')).toBeNull();
      expect(await subject.store.stat('../../etc/passwd')).toBeNull();
    });

    it('moves a spooled file in under its content key, once for the same bytes', async () => {
      const spoolDir = mkdtempSync(join(tmpdir(), 'media-contract-spool-'));
      try {
        const video = Buffer.concat([Buffer.from('\0\0\0\x18ftypisom'), bytes]);
        const sha256 = createHash('sha256').update(video).digest('hex');
        const first = join(spoolDir, 'a.part');
        writeFileSync(first, video);
        const stored = await subject.store.putFile(first, 'video/mp4', sha256, video.length);
        expect(stored).toEqual({ key: `${sha256}.mp4`, mime: 'video/mp4', bytes: video.length });
        expect((await subject.store.get(stored.key))?.body.equals(video)).toBe(true);
        const again = join(spoolDir, 'b.part');
        writeFileSync(again, video);
        expect(await subject.store.putFile(again, 'video/mp4', sha256, video.length)).toEqual(stored);
      } finally {
        rmSync(spoolDir, { recursive: true, force: true });
      }
    });

    it('keeps a record under its name, replaces it whole, and answers null for an unknown or malformed name', async () => {
      const name = createHash('sha256').update('demo:cr_1/0').digest('hex');
      expect(await subject.store.getRecord(name)).toBeNull();
      await subject.store.putRecord(name, '{"state":"retrying"}');
      await subject.store.putRecord(name, '{"state":"done"}');
      expect(await subject.store.getRecord(name)).toBe('{"state":"done"}');
      expect(await subject.store.getRecord('../../etc/passwd')).toBeNull();
      await expect(subject.store.putRecord('../x', '{}')).rejects.toThrow('not a record name');
    });

    it('answers null for a key it does not hold, and for anything that is not a content key', async () => {
      expect(await subject.store.get(`${'0'.repeat(64)}.png`)).toBeNull();
      expect(await subject.store.stat(`${'0'.repeat(64)}.png`)).toBeNull();
      for (const bad of ['../../etc/passwd', `${'a'.repeat(64)}.svg`, `${'A'.repeat(64)}.png`, '']) {
        expect(await subject.store.get(bad)).toBeNull();
        expect(await subject.store.stat(bad)).toBeNull();
      }
    });
  });
}
