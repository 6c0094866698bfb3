import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilesystemMediaStore } from '../../src/media/filesystem-media-store';
import { createMediaStore } from '../../src/media/media-store-factory';
import { appConfigSchema } from '../../src/config';
import { startS3Double, type S3Double } from '../support/s3-double';
import { describeMediaStoreContract } from './media-store.contract';

describeMediaStoreContract('filesystem', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'query-media-'));
  return { store: new FilesystemMediaStore(dir), close: async () => rmSync(dir, { recursive: true, force: true }) };
});

let double: S3Double;
describeMediaStoreContract('s3 (against the S3 double)', async () => {
  double = await startS3Double();
  // The SDK's default credential chain reads these; the double ignores signatures.
  process.env['AWS_ACCESS_KEY_ID'] = 'test';
  process.env['AWS_SECRET_ACCESS_KEY'] = 'test';
  const config = appConfigSchema.parse({
    MEDIA_ENGINE: 's3',
    MEDIA_S3_BUCKET: double.bucket,
    MEDIA_S3_ENDPOINT: double.endpoint,
    MEDIA_S3_FORCE_PATH_STYLE: 'true',
  });
  const store = createMediaStore(config);
  return {
    store,
    close: async () => {
      await store.close();
      await double.close();
    },
  };
});

describe('media engines', () => {
  it('keeps files in two-digit folders under the root, with no temporary file left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'query-media-'));
    try {
      const { key } = await new FilesystemMediaStore(dir).put(Buffer.from('abc'), 'image/gif');
      expect(readdirSync(join(dir, key.slice(0, 2)))).toEqual([key]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('S3: objects under the prefix with their content type, uploaded once, ranges asked with a Range header', async () => {
    const s3 = await startS3Double();
    const store = createMediaStore(
      appConfigSchema.parse({ MEDIA_ENGINE: 's3', MEDIA_S3_BUCKET: s3.bucket, MEDIA_S3_ENDPOINT: s3.endpoint, MEDIA_S3_FORCE_PATH_STYLE: 'true' }),
    );
    try {
      const { key } = await store.put(Buffer.from('video bytes'), 'video/mp4');
      await store.put(Buffer.from('video bytes'), 'video/mp4');
      expect([...s3.objects.keys()]).toEqual([`media/${key.slice(0, 2)}/${key}`]);
      expect(s3.objects.get(`media/${key.slice(0, 2)}/${key}`)?.contentType).toBe('video/mp4');
      expect(s3.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
      await store.get(key, { start: 2, end: 4 });
      expect(s3.requests.at(-1)).toMatchObject({ method: 'GET', range: 'bytes=2-4' });
    } finally {
      await store.close();
      await s3.close();
    }
  });

  it('the config names a missing bucket', () => {
    const parsed = appConfigSchema.safeParse({ MEDIA_ENGINE: 's3' });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain('MEDIA_S3_BUCKET');
  });
});
