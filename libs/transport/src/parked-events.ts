import { closeRedis, createRedis, type Redis } from '@adintel/redis';
import type { StreamEntry } from './consumer-groups';
import { STREAM_LIMITS, StreamKeys } from './stream-keys';
import { decodeMessage, encodeMessage, toRecord } from './wire';

/** An event one service's handler failed on every delivery, as it waits in `transport:events:dead`. */
export interface ParkedEvent {
  /** Its entry in the dead-letter stream: what `resend` takes. */
  readonly id: string;
  /** When it was parked (the time part of its entry id). */
  readonly parkedAt: string;
  /** The consumer group (service) whose handler failed; a re-sent event goes to this group only. */
  readonly group: string;
  /** Its entry in `transport:events` before it was parked. */
  readonly entry: string;
  readonly deliveries: number;
  /** Undefined when the parked fields are not a transport event (nothing can re-send those). */
  readonly pattern?: string;
  readonly data?: unknown;
  readonly requestId?: string;
}

export type ResendOutcome = { readonly id: string } & ({ readonly resent: string } | { readonly missing: true } | { readonly unreadable: true });

/** The dead-letter entry of an event: its own fields, then who failed it, its old entry id and how often. */
export function parkedEntryFields(fields: string[], group: string, entry: string, deliveries: number): string[] {
  return [...fields, 'group', group, 'entry', entry, 'deliveries', String(deliveries)];
}

/** A stream entry id (`<ms>-<seq>`), the only thing `resend` takes. */
export const STREAM_ID = /^\d+-\d+$/;

/*
 * Re-sends one parked event only if it is still parked, in one step: two operators re-sending the same id
 * send it once, and an event is never both parked and re-sent (or neither).
 * KEYS: dead-letter stream, event stream. ARGV: parked id, MAXLEN of the event stream, the event's fields.
 */
const RESEND_SCRIPT = `
if redis.call('XDEL', KEYS[1], ARGV[1]) == 0 then return false end
return redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', unpack(ARGV, 3))`;

/**
 * What an operator does with parked events (see "Delivery guarantees" in the README): list them, and re-send
 * them once the cause is fixed. A re-sent event is a new entry of `transport:events` addressed to the group that
 * parked it, so the services that handled it the first time do not run it again; its deliveries count from zero.
 */
export class ParkedEvents {
  private constructor(private readonly redis: Redis) {}

  /** On the broker (TRANSPORT_URL, else REDIS_URL); `close()` when done. */
  static connect(url: string): ParkedEvents {
    return new ParkedEvents(createRedis({ url, name: 'transport:parked-events' }));
  }

  close(): Promise<void> {
    return closeRedis(this.redis);
  }

  /** Oldest first; `group` keeps one service's events. */
  async list(group?: string): Promise<ParkedEvent[]> {
    const entries = (await this.redis.xrange(StreamKeys.deadEvents, '-', '+')) as StreamEntry[];
    return entries.map(toParkedEvent).filter((event) => group === undefined || event.group === group);
  }

  /** Re-sends the parked events with these ids, in this order; an id no longer parked is reported missing. */
  async resend(ids: readonly string[]): Promise<ResendOutcome[]> {
    const outcomes: ResendOutcome[] = [];
    for (const id of ids) {
      const [entry] = STREAM_ID.test(id) ? ((await this.redis.xrange(StreamKeys.deadEvents, id, id)) as StreamEntry[]) : [];
      if (!entry) {
        outcomes.push({ id, missing: true });
        continue;
      }
      const fields = entry[1] ?? [];
      const message = decodeMessage(fields);
      const { group } = toRecord(fields);
      if (!message || !group) {
        outcomes.push({ id, unreadable: true });
        continue;
      }
      // Same payload, request id and trace; addressed to the group that parked it.
      const event = encodeMessage({ ...message, onlyFor: group });
      const resent = (await this.redis.eval(RESEND_SCRIPT, 2, StreamKeys.deadEvents, StreamKeys.events, id, STREAM_LIMITS.eventsMaxLen, ...event)) as
        | string
        | null;
      outcomes.push(resent ? { id, resent } : { id, missing: true });
    }
    return outcomes;
  }
}

function toParkedEvent([id, fields]: StreamEntry): ParkedEvent {
  const all = fields ?? [];
  const message = decodeMessage(all);
  // parkedEntryFields appended these last, and a later value wins: the event's own fields cannot shadow them.
  const parking = toRecord(all);
  return {
    id,
    parkedAt: new Date(Number(id.split('-')[0])).toISOString(),
    group: parking.group ?? '',
    entry: parking.entry ?? '',
    deliveries: Number(parking.deliveries ?? 0),
    ...(message ? { pattern: message.pattern, data: message.data } : {}),
    ...(message?.metadata.request_id ? { requestId: message.metadata.request_id } : {}),
  };
}
