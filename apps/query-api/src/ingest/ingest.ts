import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { SingleBar } from 'cli-progress';
import { describeFieldErrors, fieldErrorsFrom } from '@adintel/contracts';
import type { AdRecord, AdStoreWriter, RejectedRow } from '../store/ad-store.port';
import type { MediaIngest } from '../media/media-ingest';
import { AdLine, toAdRecord, toAdRecordOf } from './ad-line';
import { checkedLine } from './line-check';

export interface IngestSummary {
  lines: number;
  written: number;
  rejected: number;
  /** Rejections per reason, most frequent first. */
  reasons: { reason: string; count: number }[];
  /** The first rejected rows, with line numbers. */
  samples: RejectedRow[];
  seconds: number;
  /** Of `seconds`, the time spent in finish() (indexes, rollups, refresh). */
  finishSeconds: number;
  /** CPU seconds per step of finish(), where the writer tells them (the SQLite writer's `timings`). */
  finishSteps: Record<string, number>;
  rowsPerSecond: number;
}

export interface IngestOptions {
  batchSize?: number;
  /** Show progress on stderr: a bar in a terminal, else a line at each tenth of the file. */
  progress?: boolean;
  /** Stores each line's media files before the line is written (a refused file rejects its line). */
  media?: Pick<MediaIngest, 'resolve'>;
  /** Called when every row is written and finish() starts (indexes, rollups: the load's longest quiet step). */
  onFinishing?: () => void;
}

const SAMPLE_LIMIT = 20;

/** Parses and validates one NDJSON line: the record, or why it was rejected. */
export function parseAdLine(text: string, line: number): { record: AdRecord } | { rejected: RejectedRow } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { rejected: { line, id: null, reason: 'not valid JSON' } };
  }
  // Nearly every line passes the quick check; the others are accepted or rejected (with the field named) by AdLine.
  const checked = checkedLine(raw);
  if (checked) return { record: toAdRecordOf(checked.line, checked.url) };
  const parsed = AdLine.safeParse(raw);
  if (!parsed.success) {
    const id = typeof (raw as { id?: unknown })?.id === 'string' ? (raw as { id: string }).id : null;
    const reason = describeFieldErrors(fieldErrorsFrom(parsed.error));
    return { rejected: { line, id, reason } };
  }
  return { record: toAdRecord(parsed.data) };
}

/** Streams an NDJSON file into a store: validates each line, writes in batches, then finishes the store. */
export async function ingestFile(
  file: string,
  writer: Pick<AdStoreWriter, 'write' | 'finish'> & { readonly timings?: Record<string, number> },
  options: IngestOptions = {},
): Promise<IngestSummary> {
  const batchSize = options.batchSize ?? 5_000;
  const started = performance.now();
  // A bar in a terminal; elsewhere (a pipe: npm start's set-up step, a log) a line at each tenth of the file.
  const bar = options.progress && process.stderr.isTTY
    ? new SingleBar({
        format: 'ingest [{bar}] {percentage}% | {rows} rows | {rate} rows/s | {rejected} rejected',
        stream: process.stderr,
        hideCursor: true,
      })
    : null;
  const totalBytes = statSync(file).size;
  let tenthsShown = options.progress && !bar ? 0 : Infinity;
  bar?.start(totalBytes, 0, { rows: 0, rate: 0, rejected: 0 });

  const stream = createReadStream(file, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const reasons = new Map<string, number>();
  const samples: RejectedRow[] = [];
  let lineNo = 0;
  let written = 0;
  let rejected = 0;
  let bytes = 0;
  let batch: AdRecord[] = [];
  const lineOf = new Map<string, number>();

  const reject = (row: RejectedRow) => {
    rejected++;
    const key = row.reason.replace(/"[^"]*"/g, '"…"');
    reasons.set(key, (reasons.get(key) ?? 0) + 1);
    if (samples.length < SAMPLE_LIMIT) samples.push(row);
  };
  const flush = async () => {
    if (!batch.length) return;
    if (options.media) {
      const resolved = await options.media.resolve(batch);
      for (const row of resolved.rejected) reject({ ...row, line: row.id ? (lineOf.get(row.id) ?? 0) : 0 });
      batch = resolved.records;
    }
    const result = await writer.write(batch);
    written += result.written;
    for (const row of result.rejected) reject({ ...row, line: row.line || (row.id ? (lineOf.get(row.id) ?? 0) : 0) });
    batch = [];
    lineOf.clear();
    const seconds = (performance.now() - started) / 1000;
    bar?.update(bytes, { rows: written, rate: Math.round(written / Math.max(seconds, 0.001)), rejected });
    const tenths = Math.floor((bytes * 10) / Math.max(totalBytes, 1));
    if (tenths > tenthsShown) {
      tenthsShown = tenths;
      process.stderr.write(`ingest: ${written} rows, ${Math.min(tenths * 10, 100)} % of the file (${seconds.toFixed(1)} s)\n`);
    }
  };

  for await (const text of lines) {
    lineNo++;
    bytes += Buffer.byteLength(text) + 1;
    if (!text.trim()) continue;
    const parsed = parseAdLine(text, lineNo);
    if ('rejected' in parsed) {
      reject(parsed.rejected);
      continue;
    }
    batch.push(parsed.record);
    lineOf.set(parsed.record.id, lineNo);
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  bar?.update(totalBytes);
  bar?.stop();
  options.onFinishing?.();
  const finishing = performance.now();
  await writer.finish();
  const finishSeconds = (performance.now() - finishing) / 1000;
  const seconds = (performance.now() - started) / 1000;
  return {
    lines: lineNo,
    written,
    rejected,
    reasons: [...reasons.entries()].sort((a, b) => b[1] - a[1]).map(([reason, count]) => ({ reason, count })),
    samples,
    seconds,
    finishSeconds,
    finishSteps: { ...writer.timings },
    rowsPerSecond: Math.round(written / Math.max(seconds, 0.001)),
  };
}

export function formatSummary(summary: IngestSummary): string {
  const lines = [
    `ingested ${summary.written} ads from ${summary.lines} lines in ${summary.seconds.toFixed(1)} s (${summary.rowsPerSecond} rows/s; ` +
      `indexes and rollups ${summary.finishSeconds.toFixed(1)} s of it)`,
    ...(Object.keys(summary.finishSteps).length
      ? [`  finish, CPU: ${Object.entries(summary.finishSteps).map(([step, seconds]) => `${step} ${seconds.toFixed(1)} s`).join(', ')}`]
      : []),
    `rejected ${summary.rejected} rows`,
    ...summary.reasons.slice(0, 10).map((r) => `  ${r.count} x ${r.reason}`),
    ...summary.samples.slice(0, 5).map((s) => `  e.g. line ${s.line}${s.id ? ` (id ${s.id})` : ''}: ${s.reason}`),
  ];
  return lines.join('\n');
}
