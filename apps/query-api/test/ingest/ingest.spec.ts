import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdRecord, AdStoreWriter, WriteResult } from '../../src/store/ad-store.port';
import { FIXTURE_LINES } from '../store/store-fixture';
import { generateDemoAds } from '../../src/ingest/demo-generator';
import { ingestFile, parseAdLine } from '../../src/ingest/ingest';

class RecordingWriter implements Pick<AdStoreWriter, 'write' | 'finish'> {
  readonly written: AdRecord[] = [];
  finished = false;
  size = async () => this.written.length;
  clear = async () => void this.written.splice(0);
  write = async (batch: readonly AdRecord[]): Promise<WriteResult> => {
    this.written.push(...batch);
    return { written: batch.length, rejected: [] };
  };
  finish = async () => void (this.finished = true);
  close = async () => undefined;
}

describe('NDJSON ingest', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'query-ingest-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('derives landing_domain, registrable domain, days_active and media_count', () => {
    const parsed = parseAdLine(JSON.stringify({ ...FIXTURE_LINES[6] }), 1);
    expect('record' in parsed && parsed.record).toMatchObject({
      landing_domain: 'www.lucky-bet.co.uk',
      registrable_domain: 'lucky-bet.co.uk',
      days_active: 5,
      media_count: 1,
      creative_title: 'Spin to win',
    });
  });

  it('rejects bad lines with their line number and reasons, and loads the rest', async () => {
    const good = JSON.stringify(FIXTURE_LINES[0]);
    const file = join(dir, 'mixed.ndjson');
    writeFileSync(
      file,
      [
        good,
        '{not json',
        JSON.stringify({ ...FIXTURE_LINES[1], platform_name: 'myspace' }),
        JSON.stringify({ ...FIXTURE_LINES[2], first_seen_date: '2026-02-01' }),
        JSON.stringify({ ...FIXTURE_LINES[3], extra: 1 }),
        '',
        JSON.stringify(FIXTURE_LINES[4]),
      ].join('\n'),
    );
    const writer = new RecordingWriter();
    const summary = await ingestFile(file, writer);
    expect(summary).toMatchObject({ written: 2, rejected: 4 });
    expect(writer.finished).toBe(true);
    expect(summary.samples.map((s) => [s.line, s.id])).toEqual([
      [2, null],
      [3, 'ad_02'],
      [4, 'ad_03'],
      [5, 'ad_04'],
    ]);
    expect(summary.samples[1]?.reason).toMatch(/^platform_name:/);
    expect(summary.samples[2]?.reason).toMatch(/^last_seen_date: must not be before first_seen_date/);
    expect(summary.samples[3]?.reason).toMatch(/^extra:/);
  });

  it('generates deterministic demo lines that all validate', () => {
    const a = [...generateDemoAds(500, 7)];
    expect([...generateDemoAds(500, 7)]).toEqual(a);
    for (const [i, line] of a.entries()) expect(parseAdLine(JSON.stringify(line), i + 1)).toHaveProperty('record');
    expect(new Set(a.map((l) => l.platform_name))).toEqual(new Set(['facebook', 'tiktok']));
    const withoutWebmaster = a.filter((l) => l.webmaster === null).length / a.length;
    expect(withoutWebmaster).toBeGreaterThan(0.3);
    expect(withoutWebmaster).toBeLessThan(0.5);
  });
});
