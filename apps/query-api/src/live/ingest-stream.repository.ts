import { closeRedis, createRedis, type Redis } from '@adintel/redis';

/** A stream entry as XREADGROUP / XAUTOCLAIM / XRANGE return it: its id and its fields (null when deleted). */
export type StreamEntry = [id: string, fields: string[] | null];

/** One sighting as it waits in the stream: its entry id and its `line` field (null when the entry has none). */
export interface Sighting {
  readonly entry: string;
  readonly line: string | null;
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

export type ResendOutcome = { readonly id: string } & ({ readonly resent: string } | { readonly missing: true } | { readonly full: true });

export interface GroupState {
  readonly name: string;
  readonly consumers: number;
  /** Entries delivered to the group and not acked yet. */
  readonly pending: number;
  /** Entries not delivered to the group yet (null when Redis cannot tell, after entries were deleted in the middle). */
  readonly lag: number | null;
  readonly lastDelivered: string;
}

/** A stream entry id (`<ms>-<seq>`). */
export const STREAM_ID = /^\d+-\d+$/;

/** The XADD time of an entry id, in ms since the epoch. */
export const entryTime = (id: string): number => Number(id.slice(0, id.indexOf('-')));

/** The smallest id after `id`. */
const nextId = (id: string): string => {
  const [ms = '0', seq = '0'] = id.split('-');
  return `${ms}-${BigInt(seq) + 1n}`;
};

/** How long a dead letter's source entry is remembered, so a re-delivery (or another replica's group) parks it once. */
const DEAD_SEEN_TTL_MS = 7 * 24 * 3_600_000;
/** Dead letters kept; beyond it the oldest go (approximate trimming), and the metric still counts every one. */
export const DEAD_LETTERS_MAX_LEN = 100_000;

/*
 * The bounded add, the only way producers should write (docs/live-data.md): adds as many of the lines as the bound
 * leaves room for, in order, and returns how many; 0 means the stream is full and the producer waits and retries.
 * KEYS: the stream. ARGV: the bound, then the lines.
 */
export const BOUNDED_ADD_SCRIPT = `
local room = tonumber(ARGV[1]) - redis.call('XLEN', KEYS[1])
local n = math.min(room, #ARGV - 1)
for i = 2, n + 1 do redis.call('XADD', KEYS[1], '*', 'line', ARGV[i]) end
return math.max(n, 0)`;

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
 * ARGV: dead-letter id, bound, line. Returns the new entry id, 0 when full, false when no longer parked.
 */
const RESEND_SCRIPT = `
if redis.call('XLEN', KEYS[2]) >= tonumber(ARGV[2]) then return 0 end
if redis.call('XDEL', KEYS[1], ARGV[1]) == 0 then return false end
return redis.call('XADD', KEYS[2], '*', 'line', ARGV[3])`;

/** Field list -> record (a later field of the same name wins). */
function toRecord(fields: readonly string[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i] as string] = fields[i + 1] as string;
  return record;
}

const toSighting = ([entry, fields]: StreamEntry): Sighting => ({ entry, line: fields ? (toRecord(fields)['line'] ?? null) : null });

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

  /** Creates the group (and the stream) unless it exists; a new group starts at the oldest retained entry. */
  async ensureGroup(group: string): Promise<void> {
    try {
      await this.redis.xgroup('CREATE', this.stream, group, '0', 'MKSTREAM');
    } catch (error) {
      if (!(error as Error).message.includes('BUSYGROUP')) throw error;
    }
  }

  /** New entries for this consumer (`>`), or its own pending ones from the start (`0`); waits up to `blockMs`. */
  async read(group: string, consumer: string, from: '>' | '0', count: number, blockMs: number): Promise<Sighting[]> {
    const reply = (
      from === '>'
        ? await this.redis.xreadgroup('GROUP', group, consumer, 'COUNT', count, 'BLOCK', blockMs, 'STREAMS', this.stream, from)
        : await this.redis.xreadgroup('GROUP', group, consumer, 'COUNT', count, 'STREAMS', this.stream, from)
    ) as [string, StreamEntry[]][] | null;
    return (reply?.[0]?.[1] ?? []).map(toSighting);
  }

  /** Entries of the group pending with another consumer for at least `minIdleMs`, now this consumer's (in id order). */
  async claim(group: string, consumer: string, minIdleMs: number, count: number): Promise<Sighting[]> {
    const claimed: Sighting[] = [];
    let cursor = '0-0';
    do {
      const [next, entries] = (await this.redis.xautoclaim(this.stream, group, consumer, minIdleMs, cursor, 'COUNT', count)) as [
        string,
        StreamEntry[],
        ...unknown[],
      ];
      claimed.push(...entries.filter(([, fields]) => fields !== null).map(toSighting));
      cursor = next;
    } while (cursor !== '0-0' && claimed.length < count);
    return claimed;
  }

  async ack(group: string, entries: readonly string[]): Promise<void> {
    if (entries.length) await this.redis.xack(this.stream, group, ...entries);
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

  /** Adds as many of `lines` as the bound leaves room for; returns how many (see BOUNDED_ADD_SCRIPT). */
  async boundedAdd(lines: readonly string[], maxLen: number): Promise<number> {
    return Number(await this.redis.eval(BOUNDED_ADD_SCRIPT, 1, this.stream, maxLen, ...lines));
  }

  async length(): Promise<number> {
    return this.redis.xlen(this.stream);
  }

  /** Every group on the stream; empty when the stream does not exist. */
  async groups(): Promise<GroupState[]> {
    let rows: unknown[];
    try {
      rows = (await this.redis.xinfo('GROUPS', this.stream)) as unknown[];
    } catch (error) {
      if (/no such key/i.test((error as Error).message)) return [];
      throw error;
    }
    return rows.map((row) => {
      const fields = row as (string | number | null)[];
      const get = (key: string) => fields[fields.indexOf(key) + 1];
      const lag = get('lag');
      return {
        name: String(get('name')),
        consumers: Number(get('consumers')),
        pending: Number(get('pending')),
        lag: lag === null || lag === undefined ? null : Number(lag),
        lastDelivered: String(get('last-delivered-id')),
      };
    });
  }

  /** The group's consumers: name, entries pending with each, and milliseconds since each last read. */
  async consumers(group: string): Promise<{ name: string; pending: number; idle: number }[]> {
    const rows = (await this.redis.xinfo('CONSUMERS', this.stream, group)) as (string | number)[][];
    return rows.map((fields) => {
      const get = (key: string) => fields[fields.indexOf(key) + 1];
      return { name: String(get('name')), pending: Number(get('pending')), idle: Number(get('idle')) };
    });
  }

  async deleteConsumer(group: string, consumer: string): Promise<void> {
    await this.redis.xgroup('DELCONSUMER', this.stream, group, consumer);
  }

  /** The oldest entry id pending in the group, or null. */
  async oldestPending(group: string): Promise<string | null> {
    const summary = (await this.redis.xpending(this.stream, group)) as [number, string | null, ...unknown[]];
    return summary[1] ?? null;
  }

  /** The first entry after `id`, or null. */
  async entryAfter(id: string): Promise<string | null> {
    const [entry] = (await this.redis.xrange(this.stream, `(${id}`, '+', 'COUNT', 1)) as StreamEntry[];
    return entry?.[0] ?? null;
  }

  /**
   * The oldest entry some group still needs: for each group its oldest pending entry, or the first entry after the
   * last one delivered to it. Everything before it has been acknowledged by every group.
   */
  async oldestNeeded(groups: readonly GroupState[]): Promise<string | null> {
    let oldest: string | null = null;
    for (const group of groups) {
      const needed = group.pending > 0 ? ((await this.oldestPending(group.name)) ?? nextId(group.lastDelivered)) : nextId(group.lastDelivered);
      if (oldest === null || compareIds(needed, oldest) < 0) oldest = needed;
    }
    return oldest;
  }

  /** Drops the entries before `minId` (all acknowledged by every group); returns how many went. */
  async trimBefore(minId: string): Promise<number> {
    return Number(await this.redis.xtrim(this.stream, 'MINID', minId));
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
  async resend(id: string, maxLen: number): Promise<ResendOutcome> {
    const [entry] = STREAM_ID.test(id) ? ((await this.redis.xrange(this.deadStream, id, id)) as StreamEntry[]) : [];
    if (!entry) return { id, missing: true };
    const line = toRecord(entry[1] ?? [])['line'] ?? '';
    const resent = (await this.redis.eval(RESEND_SCRIPT, 2, this.deadStream, this.stream, id, maxLen, line)) as string | number | null;
    if (resent === 0) return { id, full: true };
    return typeof resent === 'string' ? { id, resent } : { id, missing: true };
  }
}

/** Orders stream ids numerically (`<ms>-<seq>`). */
export function compareIds(a: string, b: string): number {
  const [am = 0n, as = 0n] = a.split('-').map(BigInt);
  const [bm = 0n, bs = 0n] = b.split('-').map(BigInt);
  return am === bm ? (as === bs ? 0 : as < bs ? -1 : 1) : am < bm ? -1 : 1;
}
