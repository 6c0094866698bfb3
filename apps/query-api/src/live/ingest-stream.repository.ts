import { closeRedis, createRedis, type Redis } from '@adintel/redis';
import { ConsumerGroup, oldestNeeded, oldestPending, streamGroups, trimBefore, type GroupEntry, type GroupState, type StreamEntry } from '@adintel/transport';

export { compareIds, type GroupState } from '@adintel/transport';

/**
 * One sighting as it waits in the stream: its entry id, its `line` field (null when the entry has none) and how many
 * times the group has delivered it, this time included.
 */
export interface Sighting {
  readonly entry: string;
  readonly line: string | null;
  readonly deliveries: number;
}

/** A line the service could not apply, as it waits in `<stream>:dead`. */
export interface DeadLetter {
  /** Its entry in the dead-letter stream: what `resend` takes. */
  readonly id: string;
  /** When it was rejected (the time part of `id`). */
  readonly at: string;
  /** Its entry in the ingest stream. */
  readonly entry: string;
  /** The consumer group that rejected it first. */
  readonly group: string;
  readonly reason: string;
  readonly line: string;
}

export type ResendOutcome = { readonly id: string } & (
  | { readonly resent: string }
  | { readonly missing: true }
  | { readonly full: StreamBound }
  | { readonly refused: string }
);

/** Which bound a bounded add stopped at: the stream's entries, the stream's bytes, or one line's size. */
export type StreamBound = 'entries' | 'bytes' | 'line';
export interface AddOutcome {
  /** Lines added, from the first, in order. */
  readonly added: number;
  /** Why it stopped before the last line; absent when every line went in. */
  readonly bound?: StreamBound;
}

/** A stream entry id (`<ms>-<seq>`). */
export const STREAM_ID = /^\d+-\d+$/;

/** The XADD time of an entry id, in ms since the epoch. */
export const entryTime = (id: string): number => Number(id.slice(0, id.indexOf('-')));

/** How long a dead letter's source entry is remembered, so a re-delivery (or another replica's group) parks it once. */
const DEAD_SEEN_TTL_MS = 7 * 24 * 3_600_000;
/** Dead letters kept; beyond it the oldest go (approximate trimming), and the metric still counts every one. */
export const DEAD_LETTERS_MAX_LEN = 100_000;

/**
 * The most bytes one line may have (64 KiB, ~75 times a demo line): a longer one is refused at the door by the
 * bounded add, and parked unread by the consumer should a producer bypass the script.
 */
export const LINE_MAX_BYTES = 65_536;
/**
 * The most memory the stream may take in Redis (256 MiB, as MEMORY USAGE estimates it), whatever INGEST_STREAM_MAX_LEN
 * allows: 100,000 demo lines take ~100 MB, but as many lines of 64 KiB would take 6.5 GB. The publisher and the CLI
 * pass it to the bounded add; other producers pass it too (docs/live-data.md).
 */
export const STREAM_MAX_BYTES = 256 * 1024 * 1024;
/** Handed to the service at most this many times; the next delivery parks it (a line that kills the process cannot loop). */
export const MAX_DELIVERIES = 3;

/*
 * The bounded add, the only way producers should write (docs/live-data.md): adds the lines in order while the stream
 * has room, in entries (ARGV[1]) and in bytes of Redis memory (ARGV[2], as MEMORY USAGE estimates it), and each line
 * is within LINE_MAX_BYTES. Returns {added, bound}: how many went in, and '' when all did, else the bound the next
 * line met: 'entries' or 'bytes' (the stream is full: wait and send the rest again) or 'line' (that line is too long:
 * it will never go in). KEYS: the stream. ARGV: the bound in entries, the bound in bytes, then the lines.
 */
export const BOUNDED_ADD_SCRIPT = `
local len = redis.call('XLEN', KEYS[1])
local bytes = len > 0 and redis.call('MEMORY', 'USAGE', KEYS[1]) or 0
for i = 3, #ARGV do
  local line = ARGV[i]
  local bound = (#line > ${LINE_MAX_BYTES} and 'line') or (len >= tonumber(ARGV[1]) and 'entries') or (bytes + #line > tonumber(ARGV[2]) and 'bytes')
  if bound then return {i - 3, bound} end
  redis.call('XADD', KEYS[1], '*', 'line', line)
  len = len + 1
  bytes = bytes + #line
end
return {#ARGV - 2, ''}`;

/*
 * Parks a line once per source entry: a re-delivery after a crash, or the group of another replica, finds the
 * marker and adds nothing. KEYS: dead-letter stream, marker. ARGV: marker TTL, MAXLEN, then the fields.
 */
const PARK_SCRIPT = `
if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then return false end
return redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', unpack(ARGV, 3))`;

/*
 * Moves one dead letter back to the ingest stream only if it is still parked and the stream has room, in one
 * step: two operators re-sending the same id send it once. KEYS: dead-letter stream, ingest stream.
 * ARGV: dead-letter id, bound in entries, bound in bytes, line. Returns the new entry id, 'entries' or 'bytes'
 * when full, false when no longer parked.
 */
const RESEND_SCRIPT = `
local len = redis.call('XLEN', KEYS[2])
if len >= tonumber(ARGV[2]) then return 'entries' end
if len > 0 and redis.call('MEMORY', 'USAGE', KEYS[2]) + #ARGV[4] > tonumber(ARGV[3]) then return 'bytes' end
if redis.call('XDEL', KEYS[1], ARGV[1]) == 0 then return false end
return redis.call('XADD', KEYS[2], '*', 'line', ARGV[4])`;

/**
 * Dead letters `--resend all` leaves alone: lines refused for safety, not for a fault an operator mends. Sending them
 * again could only repeat the refusal, or worse: a line that failed every delivery (it may kill the process), a line
 * over LINE_MAX_BYTES, media at an address the fetch guard refuses (private, loopback, a redirect), a path out of the
 * bundle, a picture over the pixel bound. `--resend <id>` still sends one on purpose.
 */
const KEPT_FROM_RESEND_ALL = /never acknowledged|^line over \d+ bytes|refused address|redirects are not followed|leaves the bundle|pixels/i;
export const resentByAll = (letter: Pick<DeadLetter, 'reason'>): boolean => !KEPT_FROM_RESEND_ALL.test(letter.reason);

/** Field list -> record (a later field of the same name wins). */
function toRecord(fields: readonly string[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i] as string] = fields[i + 1] as string;
  return record;
}

const toSighting = ({ id, fields, deliveries }: GroupEntry): Sighting => ({ entry: id, line: fields ? (toRecord(fields)['line'] ?? null) : null, deliveries });

/** The reason a line over LINE_MAX_BYTES is parked with. */
export const oversizeReason = (bytes: number) => `line over ${LINE_MAX_BYTES} bytes (${bytes}); send smaller lines`;

/**
 * Every Redis query of the live door, on the ingest stream and its dead letters; no decisions (the service and the
 * CLI make them). One connection for commands; the consumer reads through a second, blocking one.
 */
export class IngestStreamRepository {
  readonly deadStream: string;

  private constructor(
    private readonly redis: Redis,
    private readonly url: string,
    readonly stream: string,
  ) {
    this.deadStream = `${stream}:dead`;
  }

  static connect(url: string, stream: string, name = 'ingest'): IngestStreamRepository {
    return new IngestStreamRepository(createRedis({ url, name }), url, stream);
  }

  /** A second connection to the same Redis for blocking reads (it waits out a reconnect instead of failing). */
  blockingReader(): IngestStreamRepository {
    return new IngestStreamRepository(createRedis({ url: this.url, name: 'ingest:reader', blocking: true }), this.url, this.stream);
  }

  close(): Promise<void> {
    return closeRedis(this.redis);
  }

  /** Drops the connection at once: a read waiting on it (blocked, or queued while Redis is away) fails. */
  disconnect(): void {
    this.redis.disconnect();
  }

  /** This consumer of `group` on the stream (the shared consumer-group reader of libs/transport). */
  private group(group: string, consumer = ''): ConsumerGroup {
    return new ConsumerGroup(this.redis, {
      stream: this.stream,
      group,
      consumer,
      // A new group starts at the oldest retained entry.
      startId: '0',
      maxDeliveries: MAX_DELIVERIES,
      park: async (entries, reason) => {
        for (const entry of entries) await this.park(group, toSighting(entry), reason);
      },
    });
  }

  /** Creates the group (and the stream) unless it exists. */
  ensureGroup(group: string): Promise<void> {
    return this.group(group).ensure();
  }

  /**
   * New entries for this consumer (`>`, waiting up to `blockMs`), or its own pending ones from the start (`0`): those
   * delivered MAX_DELIVERIES times are parked instead, and a batch that failed twice comes back one entry at a time.
   * A line over LINE_MAX_BYTES (a producer bypassed the bounded add) is parked and acked, never handed out.
   */
  async read(group: string, consumer: string, from: '>' | '0', count: number, blockMs: number): Promise<Sighting[]> {
    const reader = this.group(group, consumer);
    const entries = from === '>' ? await reader.readNew(this.redis, count, blockMs) : await reader.readOwnPending(count);
    const sightings = entries.map(toSighting);
    const oversize = sightings.filter((sighting) => sighting.line !== null && Buffer.byteLength(sighting.line) > LINE_MAX_BYTES);
    if (oversize.length === 0) return sightings;
    for (const sighting of oversize) await this.park(group, sighting, oversizeReason(Buffer.byteLength(sighting.line ?? '')));
    await this.ack(group, oversize.map((sighting) => sighting.entry));
    return sightings.filter((sighting) => !oversize.includes(sighting));
  }

  /**
   * Takes over the group's entries pending with other consumers for at least `minIdleMs` (their ids only: the next
   * read from `0` delivers them, and counts that delivery); returns how many, up to `count`.
   */
  claim(group: string, consumer: string, minIdleMs: number, count: number): Promise<number> {
    return this.group(group, consumer).takeOver(minIdleMs, count);
  }

  ack(group: string, entries: readonly string[]): Promise<void> {
    return this.group(group).ack(entries);
  }

  /** Parks a line with its reason; false when this source entry was parked before. */
  async park(group: string, sighting: Sighting, reason: string): Promise<boolean> {
    const fields = ['line', sighting.line ?? '', 'reason', reason, 'entry', sighting.entry, 'group', group];
    const added = await this.redis.eval(
      PARK_SCRIPT,
      2,
      this.deadStream,
      `${this.deadStream}:seen:${sighting.entry}`,
      DEAD_SEEN_TTL_MS,
      DEAD_LETTERS_MAX_LEN,
      ...fields,
    );
    return added !== null;
  }

  /** Adds the lines in order while the bounds leave room; says how many went in and which bound stopped it (BOUNDED_ADD_SCRIPT). */
  async boundedAdd(lines: readonly string[], maxLen: number, maxBytes = STREAM_MAX_BYTES): Promise<AddOutcome> {
    const [added, bound] = (await this.redis.eval(BOUNDED_ADD_SCRIPT, 1, this.stream, maxLen, maxBytes, ...lines)) as [number, StreamBound | ''];
    return bound ? { added: Number(added), bound } : { added: Number(added) };
  }

  async length(): Promise<number> {
    return this.redis.xlen(this.stream);
  }

  /** Every group on the stream; empty when the stream does not exist. */
  groups(): Promise<GroupState[]> {
    return streamGroups(this.redis, this.stream);
  }

  /** The group's consumers: name, entries pending with each, and milliseconds since each last read. */
  consumers(group: string): Promise<{ name: string; pending: number; idle: number }[]> {
    return this.group(group).consumers();
  }

  async deleteConsumer(group: string, consumer: string): Promise<void> {
    await this.redis.xgroup('DELCONSUMER', this.stream, group, consumer);
  }

  /** The oldest entry id pending in the group, or null. */
  oldestPending(group: string): Promise<string | null> {
    return oldestPending(this.redis, this.stream, group);
  }

  /** The first entry after `id`, or null. */
  async entryAfter(id: string): Promise<string | null> {
    const [entry] = (await this.redis.xrange(this.stream, `(${id}`, '+', 'COUNT', 1)) as StreamEntry[];
    return entry?.[0] ?? null;
  }

  /** The oldest entry some group still needs; everything before it has been acknowledged by every group. */
  oldestNeeded(groups: readonly GroupState[]): Promise<string | null> {
    return oldestNeeded(this.redis, this.stream, groups);
  }

  /** Drops the entries before `minId` (all acknowledged by every group); returns how many went. */
  trimBefore(minId: string): Promise<number> {
    return trimBefore(this.redis, this.stream, minId);
  }

  async destroyGroup(group: string): Promise<boolean> {
    return Number(await this.redis.xgroup('DESTROY', this.stream, group)) === 1;
  }

  /** Dead letters, oldest first. */
  async deadLetters(count: number): Promise<DeadLetter[]> {
    const entries = (await this.redis.xrange(this.deadStream, '-', '+', 'COUNT', count)) as StreamEntry[];
    return entries.map(([id, fields]) => {
      const record = toRecord(fields ?? []);
      return {
        id,
        at: new Date(entryTime(id)).toISOString(),
        entry: record['entry'] ?? '',
        group: record['group'] ?? '',
        reason: record['reason'] ?? '',
        line: record['line'] ?? '',
      };
    });
  }

  async deadLetterCount(): Promise<number> {
    return this.redis.xlen(this.deadStream);
  }

  /** Moves one dead letter back to the stream, exactly once (see RESEND_SCRIPT). */
  async resend(id: string, maxLen: number, maxBytes = STREAM_MAX_BYTES): Promise<ResendOutcome> {
    const [entry] = STREAM_ID.test(id) ? ((await this.redis.xrange(this.deadStream, id, id)) as StreamEntry[]) : [];
    if (!entry) return { id, missing: true };
    const line = toRecord(entry[1] ?? [])['line'] ?? '';
    if (Buffer.byteLength(line) > LINE_MAX_BYTES) return { id, refused: oversizeReason(Buffer.byteLength(line)) };
    const resent = (await this.redis.eval(RESEND_SCRIPT, 2, this.deadStream, this.stream, id, maxLen, maxBytes, line)) as string | null;
    if (resent === 'entries' || resent === 'bytes') return { id, full: resent };
    return typeof resent === 'string' ? { id, resent } : { id, missing: true };
  }
}
