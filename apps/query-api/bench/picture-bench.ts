/**
 * What one picture worker makes per CPU-second (docs/media.md, "Pictures off the ingest path"): demo renders, and
 * image files decoded, checked, thumbnailed, hashed and stored, in one process, side by side. CPU is the whole
 * process's (every thread: libvips works on its own), from `process.cpuUsage()`.
 * The files are 1080x1080 (a common ad size): a demo picture scaled up with grain added, so the encoders meet texture
 * and not flat colour, encoded as JPEG (quality 85), PNG and WebP (quality 80).
 *   npx nx run query-api:picture-bench [-- --count 200]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { generateDemoAds } from '../src/ingest/demo-generator';
import { parseDemoMediaUrl, renderDemoCreative } from '../src/media/demo-creative';
import { FilesystemMediaStore } from '../src/media/filesystem-media-store';
import { MediaLibrary } from '../src/media/media-library';
import { PictureMaker } from '../src/media/picture-maker';

async function measure(label: string, count: number, one: (i: number) => Promise<unknown>): Promise<void> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < count; i++) await one(i);
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const wall = (performance.now() - started) / 1000;
  process.stdout.write(
    `${JSON.stringify({ kind: label, pictures: count, cpu_ms_per_picture: Number(((cpuSeconds * 1000) / count).toFixed(1)), pictures_per_cpu_second: Number((count / cpuSeconds).toFixed(1)), wall_s: Number(wall.toFixed(1)) })}\n`,
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { count: { type: 'string' } } });
  const count = Number(values.count ?? 200);
  const dir = mkdtempSync(join(tmpdir(), 'picture-bench-'));
  try {
    const library = new MediaLibrary(new FilesystemMediaStore(join(dir, 'media')));
    const maker = new PictureMaker(library, null);
    const urls: string[] = [];
    for (const line of generateDemoAds(count * 4)) {
      const url = (line as { media?: { url: string }[] }).media?.[0]?.url;
      if (url?.startsWith('demo:') && !urls.includes(url)) urls.push(url);
      if (urls.length >= count) break;
    }
    await measure('demo render', urls.length, (i) => maker.make({ type: 'image', url: urls[i] as string, width: 360, height: 360, duration_seconds: null }));
    // Source files: distinct pictures (a different demo per file), so no content key repeats.
    const sources = await Promise.all(
      urls.slice(0, Math.min(40, urls.length)).map(async (url) => {
        const raw = await renderDemoCreative(parseDemoMediaUrl(url) as NonNullable<ReturnType<typeof parseDemoMediaUrl>>);
        const grain = await sharp({ create: { width: 1080, height: 1080, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 0, sigma: 18 } } })
          .raw()
          .toBuffer();
        return sharp(raw.data, { raw })
          .removeAlpha()
          .resize(1080, 1080)
          .composite([{ input: grain, raw: { width: 1080, height: 1080, channels: 3 }, blend: 'overlay' }])
          .raw()
          .toBuffer({ resolveWithObject: true });
      }),
    );
    for (const [kind, encode] of [
      ['jpeg 1080x1080', (s: sharp.Sharp) => s.jpeg({ quality: 85 })],
      ['png 1080x1080', (s: sharp.Sharp) => s.png()],
      ['webp 1080x1080', (s: sharp.Sharp) => s.webp({ quality: 80 })],
    ] as const) {
      const files = await Promise.all(sources.map(({ data, info }) => encode(sharp(data, { raw: info })).toBuffer()));
      const bytes = files.reduce((sum, f) => sum + f.length, 0) / files.length;
      process.stdout.write(`${JSON.stringify({ kind, mean_file_bytes: Math.round(bytes) })}\n`);
      await measure(kind, files.length, (i) => library.addImage(files[i] as Buffer));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
