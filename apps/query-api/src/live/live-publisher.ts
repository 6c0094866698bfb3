import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { SingleBar } from 'cli-progress';
import { LINE_MAX_BYTES, type IngestStreamRepository, type StreamBound } from './ingest-stream.repository';

export interface PublishOptions {
  /** The bound the bounded add respects (INGEST_STREAM_MAX_LEN). */
  readonly maxLen: number;
  /** Lines per second at most; unset: as fast as the stream's bound lets through. */
  readonly rate?: number;
  /** Draw a progress bar on stderr. */
  readonly progress?: boolean;
}

export interface PublishSummary {
  readonly lines: number;
  readonly seconds: number;
  readonly linesPerSecond: number;
  /** Of `seconds`, the time spent waiting because the stream was at its bound (the service was behind). */
  readonly waitedSeconds: number;
  /** Which bounds made it wait: the stream's entries or its bytes. */
  readonly waitedOn: readonly StreamBound[];
  /** Lines refused for good, each over LINE_MAX_BYTES (named on stderr by their line number). */
  readonly refused: number;
}

/** Lines per bounded add: one round trip carries many lines, and a full stream refuses whole chunks quickly. */
const CHUNK = 500;
const FIRST_WAIT_MS = 20;
const LONGEST_WAIT_MS = 1_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Publishes NDJSON lines (a file, or standard input for `-`) to the ingest stream through the bounded add: when the
 * stream is at its bound the producer waits (doubling its pause up to a second) and sends the rest later, so nothing
 * is dropped and the pace is what the service accepts. Lines are not validated here: the service dead-letters bad
 * ones with their reason.
 */
export async function publishLines(source: string, repository: IngestStreamRepository, options: PublishOptions): Promise<PublishSummary> {
  const started = performance.now();
  const totalBytes = source === '-' ? 0 : statSync(source).size;
  const input: Readable = source === '-' ? process.stdin : createReadStream(source, { encoding: 'utf8' });
  const bar = options.progress
    ? new SingleBar({
        format:
          totalBytes > 0
            ? 'publish [{bar}] {percentage}% | {lines} lines | {rate} lines/s | waited {waited} s'
            : 'publish {lines} lines | {rate} lines/s | waited {waited} s',
        stream: process.stderr,
        hideCursor: true,
      })
    : null;
  bar?.start(totalBytes || 1, 0, { lines: 0, rate: 0, waited: '0.0' });

  const chunkSize = options.rate ? Math.max(1, Math.min(CHUNK, Math.floor(options.rate / 10))) : CHUNK;
  let sent = 0;
  let bytes = 0;
  let waitedMs = 0;
  let refused = 0;
  let lineNumber = 0;
  const waitedOn = new Set<StreamBound>();
  let chunk: { text: string; number: number }[] = [];

  const flush = async () => {
    let wait = FIRST_WAIT_MS;
    while (chunk.length) {
      if (options.rate) {
        const due = started + (sent / options.rate) * 1000;
        if (due > performance.now()) await sleep(due - performance.now());
      }
      const { added, bound } = await repository.boundedAdd(
        chunk.map((line) => line.text),
        options.maxLen,
      );
      sent += added;
      chunk = chunk.slice(added);
      if (bound === 'line') {
        // The door refuses it for good: say which line, and go on with the next.
        const [line] = chunk;
        process.stderr.write(`line ${line?.number}: refused, longer than ${LINE_MAX_BYTES} bytes (${Buffer.byteLength(line?.text ?? '')})\n`);
        refused++;
        chunk = chunk.slice(1);
        continue;
      }
      if (bound) waitedOn.add(bound);
      if (chunk.length) {
        const waitStarted = performance.now();
        await sleep(wait);
        waitedMs += performance.now() - waitStarted;
        wait = Math.min(LONGEST_WAIT_MS, wait * 2);
      } else wait = FIRST_WAIT_MS;
    }
    const seconds = (performance.now() - started) / 1000;
    bar?.update(totalBytes ? bytes : 1, { lines: sent, rate: Math.round(sent / Math.max(seconds, 0.001)), waited: (waitedMs / 1000).toFixed(1) });
  };

  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    bytes += Buffer.byteLength(text) + 1;
    lineNumber++;
    if (!text.trim()) continue;
    chunk.push({ text, number: lineNumber });
    if (chunk.length >= chunkSize) await flush();
  }
  await flush();
  bar?.stop();
  const seconds = (performance.now() - started) / 1000;
  return { lines: sent, seconds, linesPerSecond: Math.round(sent / Math.max(seconds, 0.001)), waitedSeconds: waitedMs / 1000, waitedOn: [...waitedOn], refused };
}

export function formatPublishSummary(summary: PublishSummary, stream: string): string {
  return (
    `published ${summary.lines} lines to ${stream} in ${summary.seconds.toFixed(1)} s (${summary.linesPerSecond} lines/s; ` +
    `waited ${summary.waitedSeconds.toFixed(1)} s on backpressure` +
    (summary.waitedOn.length ? `, at the stream's bound of ${summary.waitedOn.join(' and ')}` : '') +
    ')' +
    (summary.refused ? `; refused ${summary.refused} lines over ${LINE_MAX_BYTES} bytes` : '')
  );
}
