import { channel } from 'node:diagnostics_channel';
import type { Redis } from '@adintel/redis';

/** Stream entries as [id, fields] pairs, from XREADGROUP / XAUTOCLAIM / XRANGE replies (fields null when deleted). */
export type StreamEntry = [id: string, fields: string[] | null];

/** An entry as a consumer of a group gets it: with how many times the group has delivered it (this time included). */
export interface GroupEntry {
  readonly id: string;
  readonly fields: string[] | null;
  readonly deliveries: number;
}

export interface ConsumerInfo {
  readonly name: string;
  readonly pending: number;
  /** Milliseconds since the consumer last read, claimed or heartbeat. */
  readonly idle: number;
}

export interface GroupState {
  readonly name: string;
  readonly consumers: number;
  /** Entries delivered to the group and not acked yet. */
  readonly pending: number;
  /** Entries not delivered to the group yet (null when Redis cannot tell, after entries were deleted in the middle). */
  readonly lag: number | null;
  readonly lastDelivered: string;
}

/**
 * Where an entry goes that the group has delivered more than `maxDeliveries` times: the owner's dead letters, with
 * the reason. The group acks it once this resolves, so it is never handed out again.
 */
export type ParkSpent = (entries: readonly GroupEntry[], reason: string) => Promise<void>;

export interface ConsumerGroupOptions {
  readonly stream: string;
  readonly group: string;
  readonly consumer: string;
  /** Where a new group starts: `$` (only what comes after) or `0` (everything the stream retains). */
  readonly startId: '$' | '0';
  /** An entry is handed out at most this many times; the next delivery parks it instead (unset: never parked). */
  readonly maxDeliveries?: number;
  readonly park?: ParkSpent;
}

/** What a group did, for metrics: `adintel:transport:group` carries one event per claim and per park. */
export interface GroupEvent {
  readonly stream: string;
  readonly group: string;
  readonly event: 'claimed' | 'parked';
  readonly count: number;
}
export const GROUP_EVENTS_CHANNEL = 'adintel:transport:group';
const groupEvents = channel(GROUP_EVENTS_CHANNEL);

/** The reason a spent entry is parked with. */
export const spentReason = (deliveries: number) =>
  `delivered ${deliveries - 1} times and never acknowledged (its handler failed or the process died on it each time)`;

/**
 * One consumer of one Redis Streams consumer group: the only code that speaks XREADGROUP, XAUTOCLAIM, XCLAIM,
 * XPENDING, XACK, XTRIM and XINFO, for the transport's servers and for the live door alike.
 *
 * Delivery counts are Redis's own (the group's pending list): a read of new entries delivers each once, a read of
 * this consumer's own pending entries and a claim that returns the entries count once more; a claim of ids only
 * (`takeOver`) does not, so the read that follows it is the one delivery. An entry delivered more than
 * `maxDeliveries` times is parked through `park` and acked instead of being handed out again: a line or a message
 * that kills its handler cannot loop for ever.
 */
export class ConsumerGroup {
  constructor(
    private readonly redis: Redis,
    readonly options: ConsumerGroupOptions,
  ) {}

  get stream(): string {
    return this.options.stream;
  }

  /** Creates the group (and the stream) unless it exists; BUSYGROUP means another replica made it first. */
  async ensure(): Promise<void> {
    try {
      await this.redis.xgroup('CREATE', this.stream, this.options.group, this.options.startId, 'MKSTREAM');
    } catch (error) {
      if (!(error as Error).message.includes('BUSYGROUP')) throw error;
    }
  }

  /** Entries never delivered to the group (`>`), on `reader` (a blocking connection); waits up to `blockMs`. */
  async readNew(reader: Redis, count: number, blockMs: number): Promise<GroupEntry[]> {
    const [read] = await readGroups(reader, [this], count, blockMs);
    return read?.[1] ?? [];
  }

  /**
   * This consumer's own pending entries from the oldest (a crash mid-batch, or entries it just took over), without
   * blocking. Entries already delivered `maxDeliveries` times are parked first. When the oldest left was delivered
   * before, this returns it alone: a batch that failed twice is retried one entry at a time, so only the entry that
   * fails goes on to be parked, not the good ones read with it.
   */
  async readOwnPending(count: number): Promise<GroupEntry[]> {
    const { stream, group, consumer } = this.options;
    for (;;) {
      const rows = (await this.redis.xpending(stream, group, '-', '+', count, consumer)) as [string, string, number, number][];
      if (rows.length === 0) return [];
      const max = this.options.maxDeliveries;
      const spent = max === undefined ? [] : rows.filter(([, , , deliveries]) => deliveries >= max).map(([id, , , d]) => ({ id, deliveries: d + 1 }));
      if (spent.length > 0) {
        await this.parkSpent(spent);
        continue;
      }
      const suspect = rows.length > 0 && (rows[0]?.[3] ?? 0) >= 2;
      const reply = (await this.redis.xreadgroup('GROUP', group, consumer, 'COUNT', suspect ? 1 : count, 'STREAMS', stream, '0')) as
        | [string, StreamEntry[]][]
        | null;
      const counts = new Map(rows.map(([id, , , deliveries]) => [id, deliveries + 1]));
      return (reply?.[0]?.[1] ?? []).map(([id, fields]) => ({ id, fields, deliveries: counts.get(id) ?? 1 }));
    }
  }

  /**
   * Takes over entries pending with other consumers for at least `minIdleMs` (ids only: their delivery counts stay,
   * and `readOwnPending` delivers them); returns how many, up to `count`.
   */
  async takeOver(minIdleMs: number, count: number): Promise<number> {
    let taken = 0;
    let cursor = '0-0';
    do {
      const [next, ids] = (await this.redis.xautoclaim(this.stream, this.options.group, this.options.consumer, minIdleMs, cursor, 'COUNT', count, 'JUSTID')) as [
        string,
        string[],
        ...unknown[],
      ];
      taken += ids.length;
      cursor = next;
    } while (cursor !== '0-0' && taken < count);
    this.publish('claimed', taken);
    return taken;
  }

  /**
   * Claims entries pending with other consumers for at least `minIdleMs` and returns them to run now (the claim is
   * their delivery), up to `count` per pass; entries past `maxDeliveries` are parked instead. `room()` is asked
   * before each pass, so a busy consumer claims only what it can run.
   */
  async claimIdle(minIdleMs: number, room: () => number): Promise<GroupEntry[]> {
    const claimed: GroupEntry[] = [];
    let cursor = '0-0';
    do {
      const count = room() - claimed.length;
      if (count <= 0) break;
      const [next, entries] = (await this.redis.xautoclaim(this.stream, this.options.group, this.options.consumer, minIdleMs, cursor, 'COUNT', count)) as [
        string,
        StreamEntry[],
      ];
      const live = entries.filter(([, fields]) => fields !== null);
      if (live.length > 0) claimed.push(...(await this.withoutSpent(await this.counted(live))));
      cursor = next;
    } while (cursor !== '0-0');
    this.publish('claimed', claimed.length);
    return claimed;
  }

  /** Resets the idle time of entries this consumer is still working on, so nobody claims a slow but live handler. */
  async keepAlive(ids: readonly string[], minIdleMs: number): Promise<void> {
    if (ids.length > 0) await this.redis.xclaim(this.stream, this.options.group, this.options.consumer, minIdleMs, ...ids, 'JUSTID');
  }

  /** Makes entries this consumer will not run claimable by the others at once (their idle time jumps to `idleMs`). */
  async handBack(ids: readonly string[], idleMs: number): Promise<void> {
    if (ids.length > 0) await this.redis.xclaim(this.stream, this.options.group, this.options.consumer, 0, ...ids, 'IDLE', idleMs, 'JUSTID');
  }

  async ack(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.redis.xack(this.stream, this.options.group, ...ids);
  }

  /** The group's consumers (XINFO CONSUMERS); empty when the stream or the group does not exist yet. */
  async consumers(): Promise<ConsumerInfo[]> {
    let rows: unknown[];
    try {
      rows = (await this.redis.xinfo('CONSUMERS', this.stream, this.options.group)) as unknown[];
    } catch (error) {
      if (/no such key|NOGROUP/i.test((error as Error).message)) return [];
      throw error;
    }
    return rows.map((row) => {
      const get = field(row);
      return { name: String(get('name')), pending: Number(get('pending')), idle: Number(get('idle')) };
    });
  }

  /** Removes other consumers silent for `minIdleMs` with nothing pending: replicas (or earlier runs) that are gone. */
  async forgetGone(minIdleMs: number): Promise<void> {
    for (const other of await this.consumers()) {
      if (other.name !== this.options.consumer && other.pending === 0 && other.idle >= minIdleMs) {
        await this.redis.xgroup('DELCONSUMER', this.stream, this.options.group, other.name);
      }
    }
  }

  /** On a clean stop with nothing left pending, this consumer leaves the group (deleting it with entries would lose them). */
  async forgetSelfIfIdle(): Promise<void> {
    const me = (await this.consumers()).find((c) => c.name === this.options.consumer);
    if (me && me.pending === 0) await this.redis.xgroup('DELCONSUMER', this.stream, this.options.group, this.options.consumer);
  }

  /** Delivery counts of pending entries, from the group's pending list (one XPENDING per entry, in one pipeline). */
  private async counted(entries: readonly StreamEntry[]): Promise<GroupEntry[]> {
    const replies = await entries.reduce((pipeline, [id]) => pipeline.xpending(this.stream, this.options.group, id, id, 1), this.redis.pipeline()).exec();
    // XPENDING start end count -> [[id, consumer, idle ms, deliveries]]
    return entries.map(([id, fields], i) => ({
      id,
      fields,
      deliveries: Number((replies?.[i]?.[1] as [string, string, number, number][] | undefined)?.[0]?.[3] ?? 1),
    }));
  }

  /** Parks (and acks) the entries delivered more than `maxDeliveries` times; returns the others. */
  private async withoutSpent(entries: readonly GroupEntry[]): Promise<GroupEntry[]> {
    const max = this.options.maxDeliveries;
    if (max === undefined) return [...entries];
    const spent = entries.filter((entry) => entry.deliveries > max);
    if (spent.length > 0) await this.park(spent);
    return entries.filter((entry) => entry.deliveries <= max);
  }

  /** Reads the spent entries' fields (they were not handed out this time) and parks them. */
  private async parkSpent(spent: readonly { id: string; deliveries: number }[]): Promise<void> {
    const read = await spent.reduce((pipeline, { id }) => pipeline.xrange(this.stream, id, id), this.redis.pipeline()).exec();
    await this.park(spent.map(({ id, deliveries }, i) => ({ id, deliveries, fields: (read?.[i]?.[1] as StreamEntry[] | undefined)?.[0]?.[1] ?? null })));
  }

  private async park(spent: readonly GroupEntry[]): Promise<void> {
    for (const deliveries of new Set(spent.map((entry) => entry.deliveries))) {
      await this.options.park?.(
        spent.filter((entry) => entry.deliveries === deliveries),
        spentReason(deliveries),
      );
    }
    await this.ack(spent.map((entry) => entry.id));
    this.publish('parked', spent.length);
  }

  private publish(event: GroupEvent['event'], count: number): void {
    if (count > 0 && groupEvents.hasSubscribers) groupEvents.publish({ stream: this.stream, group: this.options.group, event, count } satisfies GroupEvent);
  }
}

/**
 * New entries of several groups read by one consumer in one XREADGROUP (one blocking connection serves them all);
 * the groups share a group and consumer name. Returns [stream, entries] for the streams that had any.
 */
export async function readGroups(reader: Redis, groups: readonly ConsumerGroup[], count: number, blockMs: number): Promise<[ConsumerGroup, GroupEntry[]][]> {
  const [first] = groups;
  if (!first) return [];
  const streams = groups.map((group) => group.stream);
  const reply = (await reader.xreadgroup(
    'GROUP',
    first.options.group,
    first.options.consumer,
    'COUNT',
    count,
    'BLOCK',
    blockMs,
    'STREAMS',
    ...streams,
    ...streams.map(() => '>'),
  )) as [string, StreamEntry[]][] | null;
  return (reply ?? []).flatMap(([stream, entries]) => {
    const group = groups.find((candidate) => candidate.stream === stream);
    return group ? [[group, entries.map(([id, fields]) => ({ id, fields, deliveries: 1 }))] as [ConsumerGroup, GroupEntry[]]] : [];
  });
}

/** Every group on a stream (XINFO GROUPS); empty when the stream does not exist. */
export async function streamGroups(redis: Redis, stream: string): Promise<GroupState[]> {
  let rows: unknown[];
  try {
    rows = (await redis.xinfo('GROUPS', stream)) as unknown[];
  } catch (error) {
    if (/no such key/i.test((error as Error).message)) return [];
    throw error;
  }
  return rows.map((row) => {
    const get = field(row);
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

/** How far a service's group is behind on a stream: entries not yet delivered (lag) and delivered but not acked. */
export async function groupBacklog(redis: Redis, stream: string, group: string): Promise<{ lag: number; pending: number } | undefined> {
  const state = (await streamGroups(redis, stream)).find((candidate) => candidate.name === group);
  return state ? { lag: state.lag ?? 0, pending: state.pending } : undefined;
}

/** The oldest entry id pending in the group, or null. */
export async function oldestPending(redis: Redis, stream: string, group: string): Promise<string | null> {
  const summary = (await redis.xpending(stream, group)) as [number, string | null, ...unknown[]];
  return summary[1] ?? null;
}

/**
 * The oldest entry some group still needs: for each group its oldest pending entry, or the first entry after the
 * last one delivered to it. Everything before it has been acknowledged by every group, and can be trimmed.
 */
export async function oldestNeeded(redis: Redis, stream: string, groups: readonly GroupState[]): Promise<string | null> {
  let oldest: string | null = null;
  for (const group of groups) {
    const needed = group.pending > 0 ? ((await oldestPending(redis, stream, group.name)) ?? nextId(group.lastDelivered)) : nextId(group.lastDelivered);
    if (oldest === null || compareIds(needed, oldest) < 0) oldest = needed;
  }
  return oldest;
}

/** Drops the entries before `minId`; returns how many went. */
export async function trimBefore(redis: Redis, stream: string, minId: string): Promise<number> {
  return Number(await redis.xtrim(stream, 'MINID', minId));
}

/** Orders stream ids numerically (`<ms>-<seq>`). */
export function compareIds(a: string, b: string): number {
  const [am = 0n, as = 0n] = a.split('-').map(BigInt);
  const [bm = 0n, bs = 0n] = b.split('-').map(BigInt);
  return am === bm ? (as === bs ? 0 : as < bs ? -1 : 1) : am < bm ? -1 : 1;
}

/** The smallest id after `id`. */
function nextId(id: string): string {
  const [ms = '0', seq = '0'] = id.split('-');
  return `${ms}-${BigInt(seq) + 1n}`;
}

/** A reader of one XINFO row (a flat [key, value, ...] list). */
function field(row: unknown): (key: string) => string | number | null | undefined {
  const fields = row as (string | number | null)[];
  return (key) => fields[fields.indexOf(key) + 1];
}
