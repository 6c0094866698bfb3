import { Logger } from '@nestjs/common';
import { Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { isObservable, lastValueFrom } from 'rxjs';
import { ServiceErrorPayload, type ServiceName } from '@adintel/contracts';
import { requestIdFrom, runWithRequestId } from '@adintel/observability';
import { closeRedis, createRedis, type Redis } from '@adintel/redis';
import { coalesceWrites } from './coalesce-writes';
import { ConsumerGroup, readGroups, type GroupEntry } from './consumer-groups';
import { publishHandled, type TransportHandledEvent } from './diagnostics';
import { parkedEntryFields } from './parked-events';
import { StreamContext } from './stream-context';
import { STREAM_LIMITS, StreamKeys } from './stream-keys';
import { runWithTraceparent } from './trace-context';
import { decodeMessage, encodeReply, type WireMessage } from './wire';

export interface StreamsServerOptions {
  readonly service: ServiceName;
  /** The broker: TRANSPORT_URL, which defaults to REDIS_URL. */
  readonly url: string;
  /**
   * A pending entry idle this long belongs to a dead or frozen replica and is claimed by a live one.
   * Must stay well under the callers' timeout so a claimed request can still be answered in time.
   */
  readonly claimIdleMs: number;
  /**
   * The replica proves it is alive every third of this window (`transport:<service>:alive`, expiring after the
   * window); clients fail fast with `unavailable` once no replica did within it. Default 3,000 ms.
   */
  readonly livenessWindowMs: number;
  /** Messages this replica handles at once; it reads no more than it has room for. */
  readonly concurrency?: number;
  /** How long one XREADGROUP waits; bounds how stale the consumer's idle time gets while nothing arrives. */
  readonly blockMs?: number;
  /**
   * An event whose handler failed unexpectedly this many times is moved to `transport:events:dead` and acked,
   * so one poison event is not retried for ever (default 5).
   */
  readonly maxEventDeliveries?: number;
}

interface InFlight {
  readonly stream: string;
  readonly done: Promise<void>;
}

const DEFAULT_CONCURRENCY = 32;
const DEFAULT_BLOCK_MS = 1_000;
const DEFAULT_MAX_EVENT_DELIVERIES = 5;
/** A consumer this long silent with nothing pending is a replica that is gone: its name is removed. */
const FORGET_CONSUMER_AFTER_MS = 10 * 60_000;

/**
 * The server side of the transport: a Redis Streams consumer group per service.
 *
 * Every replica of a service is one consumer of the group on `transport:<service>:requests` (and, when it has
 * event handlers, of the group of the same name on `transport:events`), so each message reaches one replica.
 * A message is acked only after its reply is written; a replica that dies mid-message leaves the entry
 * pending, and a live replica claims it once it has been idle `claimIdleMs` (XAUTOCLAIM). Requests carry the
 * caller's deadline and are dropped (acked, never run) once it has passed.
 *
 * Liveness: each replica refreshes `transport:<service>:alive` from a timer while it makes progress; when no
 * replica did within the window (all dead, frozen or hung), clients fail fast with `unavailable`. The replica
 * also re-claims its own in-flight entries on a timer, so a slow but live handler is never claimed away, while a
 * frozen replica's entries go idle and are claimed by a live one.
 */
export class StreamsServer extends Server implements CustomTransportStrategy {
  private readonly log = new Logger('Transport');
  private readonly consumer = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly group: string;
  private readonly concurrency: number;
  private readonly blockMs: number;
  private readonly inFlight = new Map<string, InFlight>();
  /** The groups this replica consumes: its requests, and the events when it has event handlers. */
  private groups: ConsumerGroup[] = [];
  private commands?: Redis;
  private reader?: Redis;
  private readerClientId?: number;
  private closing = false;
  private readLoop?: Promise<void>;
  private slotFreed?: () => void;
  private timers: NodeJS.Timeout[] = [];
  private finishedSinceBeat = 0;
  private readonly inboxExpiries = new Map<string, number>();
  /** Replies finished since the last read returned: they go out with the next read (undefined while it blocks). */
  private repliesBeforeRead?: PendingReply[];

  constructor(private readonly options: StreamsServerOptions) {
    super();
    this.group = options.service;
    this.concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    this.blockMs = options.blockMs ?? DEFAULT_BLOCK_MS;
  }

  /** This replica's consumer name in the group (host:pid:random). */
  get consumerName(): string {
    return this.consumer;
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      this.commands = createRedis({ url: this.options.url, name: `transport:${this.group}` });
      this.reader = createRedis({ url: this.options.url, name: `transport:${this.group}:reader`, blocking: true });
      this.reader.on('ready', () => void this.rememberReaderId());
      const commands = this.commands;
      const group = { group: this.group, consumer: this.consumer };
      this.groups = [new ConsumerGroup(commands, { ...group, stream: StreamKeys.requests(this.options.service), startId: '$' })];
      if ([...this.messageHandlers.values()].some((handler) => handler.isEventHandler)) {
        // From the start of the retained stream: events published before this service first ran are not lost.
        this.groups.push(
          new ConsumerGroup(commands, {
            ...group,
            stream: StreamKeys.events,
            startId: '0',
            maxDeliveries: this.options.maxEventDeliveries ?? DEFAULT_MAX_EVENT_DELIVERIES,
            park: (entries) => this.parkEvents(commands, entries),
          }),
        );
      }
      for (const consumerGroup of this.groups) await consumerGroup.ensure();
      await this.heartbeat();
      await this.rememberReaderId();
      const tick = Math.max(100, Math.floor(this.options.claimIdleMs / 4));
      this.timers.push(setInterval(() => void this.maintain(), tick));
      this.timers.push(setInterval(() => void this.heartbeat(), Math.floor(this.options.livenessWindowMs / 3)));
      this.timers.push(setInterval(() => void this.forgetDeadConsumers(), FORGET_CONSUMER_AFTER_MS / 10));
      this.readLoop = this.readUntilClosed();
      callback();
    } catch (error) {
      callback(error);
    }
  }

  /**
   * Graceful stop: reads nothing more (the blocked XREADGROUP is released at once), lets the handlers in
   * flight finish, reply and ack, and returns. Entries read but not started are handed back: they stay
   * pending with an idle time past `claimIdleMs`, so another replica claims them on its next pass.
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.slotFreed?.();
    if (this.commands && this.readerClientId !== undefined) {
      await this.commands.client('UNBLOCK', this.readerClientId).catch(() => undefined);
    }
    await this.readLoop;
    await Promise.allSettled([...this.inFlight.values()].map((entry) => entry.done));
    if (this.commands) {
      await this.forgetSelfIfIdle().catch(() => undefined);
      await closeRedis(this.commands);
    }
    if (this.reader) this.reader.disconnect();
  }

  on(): never {
    throw new Error('the Redis Streams transport has no events to listen to');
  }

  unwrap<T>(): T {
    return { commands: this.commands, reader: this.reader } as T;
  }

  private async rememberReaderId(): Promise<void> {
    this.readerClientId = (await this.reader?.client('ID').catch(() => undefined)) as number | undefined;
  }

  private async readUntilClosed(): Promise<void> {
    const reader = this.reader as Redis;
    while (!this.closing) {
      const room = this.concurrency - this.inFlight.size;
      if (room <= 0) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
        continue;
      }
      // The replies finished since the last read go out in the same write as the next read (one packet, one
      // wake-up of Redis); Redis runs them in order, so each reply and ack lands before the read blocks.
      const finished = this.takeRepliesBeforeRead();
      if (finished.length > 0) coalesceWrites(reader);
      for (const reply of finished) this.sendReply(reader, reply);
      let read: [ConsumerGroup, GroupEntry[]][];
      try {
        read = await readGroups(reader, this.groups, room, this.blockMs);
      } catch (error) {
        if (this.closing) break;
        if ((error as Error).message.includes('NOGROUP')) await this.recreateGroups();
        else this.log.warn(`reading ${this.groups.map((group) => group.stream).join(', ')}: ${(error as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      this.repliesBeforeRead = [];
      const started = read.flatMap(([group, entries]) => this.accept(group, entries));
      if (started.length > 0) await handlersDoneOrNextTurn(started);
    }
    // Stopping: what waited for the next read goes out now, and later replies on the command connection.
    for (const reply of this.takeRepliesBeforeRead()) this.sendReply(this.commands as Redis, reply);
  }

  /** The replies waiting for the next read; until a read returns again, each reply goes out on its own. */
  private takeRepliesBeforeRead(): PendingReply[] {
    const finished = this.repliesBeforeRead ?? [];
    this.repliesBeforeRead = undefined;
    return finished;
  }

  /** Someone deleted the stream (FLUSHDB in a test, an operator): make it again instead of going deaf. */
  private async recreateGroups(): Promise<void> {
    for (const group of this.groups) await group.ensure().catch(() => undefined);
  }

  /** Starts the entries' handlers; returns their completions. */
  private accept(group: ConsumerGroup, entries: readonly GroupEntry[]): Promise<void>[] {
    const stream = group.stream;
    const started: Promise<void>[] = [];
    const handBack: string[] = [];
    for (const { id, fields } of entries) {
      if (this.closing) {
        handBack.push(id);
        continue;
      }
      if (this.inFlight.has(id) || fields === null) continue;
      const done = this.handle(stream, id, fields).finally(() => {
        this.inFlight.delete(id);
        this.finishedSinceBeat += 1;
        this.slotFreed?.();
        this.slotFreed = undefined;
      });
      this.inFlight.set(id, { stream, done });
      started.push(done);
    }
    // Entries this replica will not run become claimable by the others at once (their idle time jumps past the limit).
    if (handBack.length > 0) {
      void group
        .handBack(handBack, this.options.claimIdleMs + 1)
        .catch((error: Error) => this.log.warn(`handing back ${handBack.length} entries: ${error.message}`));
    }
    return started;
  }

  private async handle(stream: string, entryId: string, fields: string[]): Promise<void> {
    const started = performance.now();
    const message = decodeMessage(fields);
    if (!message) {
      this.log.warn({ msg: 'skipped an entry that is not a transport message', stream, entry_id: entryId });
      return this.ack(stream, entryId);
    }
    // Our patterns are plain strings, the keys of messageHandlers as registered. Nest's getHandlerByPattern
    // would first try JSON.parse on each one (a thrown exception per message, which showed in CPU profiles).
    const handler = this.messageHandlers.get(message.pattern);
    if (message.reply && Date.now() > message.reply.deadline) {
      // The caller has given up: running it now could only charge or query for nobody.
      this.report(message, 'expired', started);
      return this.ack(stream, entryId);
    }
    const forThisService = message.reply || (handler?.isEventHandler && (message.onlyFor ?? this.group) === this.group);
    if (!forThisService) return this.ack(stream, entryId); // an event for other services
    const context = new StreamContext([message.pattern, message.metadata, entryId]);
    await runWithRequestId(requestIdFrom(message.metadata.request_id), () =>
      runWithTraceparent(message.metadata.traceparent, async () => {
        const outcome = handler ? await this.run(handler, message, context) : missingHandler(message.pattern);
        if (message.reply) {
          this.replyAndAck(stream, entryId, message.reply, outcome);
        } else if ('ok' in outcome || outcome.typed) {
          await this.ack(stream, entryId);
        } else {
          // An unexpected failure of an event (e.g. its store is down) is retried: the entry stays pending and
          // is claimed again after claimIdleMs. Typed errors (a bad event) are final.
          this.log.warn({ msg: 'event failed, left pending for a retry', pattern: message.pattern });
        }
        this.report(message, 'ok' in outcome ? 'ok' : 'error', started);
      }),
    );
  }

  private async run(handler: MessageHandler, message: WireMessage, context: StreamContext): Promise<HandlerOutcome> {
    try {
      const result: unknown = await handler(message.data, context);
      // Nest's handlers (interceptors, pipes, filters) answer with an Observable; a plain handler with a value.
      return { ok: isObservable(result) ? await lastValueFrom(result, { defaultValue: undefined }) : result };
    } catch (error) {
      // RpcErrorFilter turns every error into a ServiceErrorPayload; anything else is a bug in the filter chain.
      const payload = ServiceErrorPayload.safeParse(error);
      if (payload.success) return { err: payload.data, typed: payload.data.code !== 'internal' };
      this.log.error(error instanceof Error ? error : new Error(String(error)));
      return { err: { code: 'internal', message: 'the service failed unexpectedly' }, typed: false };
    }
  }

  /**
   * Between two reads the reply waits for the next read's write (see readUntilClosed); while the read is
   * blocked it goes out at once on the command connection. Either way the ack follows the reply on the same
   * connection, so Redis never runs the ack before the reply.
   */
  private replyAndAck(stream: string, entryId: string, reply: NonNullable<WireMessage['reply']>, outcome: HandlerOutcome): void {
    const pending: PendingReply = { stream, entryId, to: reply.to, fields: this.encodeOutcome(reply.id, outcome) };
    if (this.repliesBeforeRead) {
      this.repliesBeforeRead.push(pending);
    } else {
      const commands = this.commands as Redis;
      coalesceWrites(commands);
      this.sendReply(commands, pending);
    }
  }

  /** The reply's fields; an answer JSON cannot carry (a bigint, a cycle) is a bug, answered as `internal`. */
  private encodeOutcome(id: string, outcome: HandlerOutcome): string[] {
    try {
      return encodeReply('ok' in outcome ? { id, ok: outcome.ok } : { id, err: outcome.err });
    } catch (error) {
      this.log.error(error instanceof Error ? error : new Error(String(error)));
      return encodeReply({ id, err: { code: 'internal', message: 'the service failed unexpectedly' } });
    }
  }

  private sendReply(redis: Redis, { stream, entryId, to, fields }: PendingReply): void {
    const failed = (error: Error) => this.log.warn(`replying to ${to}: ${error.message}`);
    // Sent together, not one after the other's answer: on the reader connection the ack must precede the read.
    redis.xadd(to, 'MAXLEN', '~', STREAM_LIMITS.repliesMaxLen, '*', ...fields).catch(failed);
    if (this.inboxExpiryDue(to)) redis.pexpire(to, STREAM_LIMITS.repliesTtlMs).catch(failed);
    redis.xack(stream, this.group, entryId).catch(failed);
  }

  /** A reply stream's expiry is pushed forward at most once per second per inbox, not on every reply. */
  private inboxExpiryDue(inbox: string): boolean {
    const now = Date.now();
    if (now - (this.inboxExpiries.get(inbox) ?? 0) < 1_000) return false;
    if (this.inboxExpiries.size > 10_000) this.inboxExpiries.clear();
    this.inboxExpiries.set(inbox, now);
    return true;
  }

  private async ack(stream: string, entryId: string): Promise<void> {
    await this.commands?.xack(stream, this.group, entryId).catch((error: Error) => this.log.warn(`ack ${entryId}: ${error.message}`));
  }

  private report(message: WireMessage, outcome: TransportHandledEvent['outcome'], started: number): void {
    const durationMs = Math.round((performance.now() - started) * 10) / 10;
    this.log.log({ msg: 'message handled', pattern: message.pattern, duration_ms: durationMs, outcome });
    publishHandled({ pattern: message.pattern, outcome, durationMs });
  }

  /**
   * A replica is alive when its event loop runs (a frozen process skips this timer) and it makes progress:
   * with every slot taken and nothing finished since the last beat, its handlers are hung and it stays silent,
   * so callers stop queueing work behind it.
   */
  private async heartbeat(): Promise<void> {
    const hung = this.inFlight.size >= this.concurrency && this.finishedSinceBeat === 0;
    this.finishedSinceBeat = 0;
    if (this.closing || hung || !this.commands) return;
    await this.commands
      .set(StreamKeys.alive(this.options.service), this.consumer, 'PX', this.options.livenessWindowMs)
      .catch((error: Error) => this.log.warn(`heartbeat: ${error.message}`));
  }

  /**
   * Every claimIdleMs/4: keep this replica's own in-flight entries fresh (so nobody claims a slow but live
   * handler), then claim entries of dead or frozen replicas. Both also refresh this consumer's idle time.
   */
  private async maintain(): Promise<void> {
    if (this.closing || !this.commands) return;
    try {
      for (const group of this.groups) {
        const mine = [...this.inFlight.entries()].filter(([, entry]) => entry.stream === group.stream).map(([id]) => id);
        await group.keepAlive(mine, Math.floor(this.options.claimIdleMs / 4));
        if (this.closing) return;
        const claimed = await group.claimIdle(this.options.claimIdleMs, () => (this.closing ? 0 : this.concurrency - this.inFlight.size));
        if (claimed.length > 0) this.log.log({ msg: 'claimed abandoned messages', stream: group.stream, count: claimed.length });
        // Their outcomes are handled inside (reply, ack, logs); allSettled only keeps a rejection from going unhandled.
        void Promise.allSettled(this.accept(group, claimed));
      }
    } catch (error) {
      if (!this.closing) this.log.warn(`claiming abandoned messages: ${(error as Error).message}`);
    }
  }

  /**
   * Events delivered more than `maxEventDeliveries` times go to the dead-letter stream with their fields, this group
   * and the count (ConsumerGroup acks them): they stay readable for an operator instead of failing every claim pass.
   */
  private async parkEvents(commands: Redis, entries: readonly GroupEntry[]): Promise<void> {
    const park = commands.pipeline();
    for (const { id, fields, deliveries } of entries) {
      park.xadd(StreamKeys.deadEvents, 'MAXLEN', '~', STREAM_LIMITS.deadEventsMaxLen, '*', ...parkedEntryFields(fields ?? [], this.group, id, deliveries));
      const pattern = fields ? decodeMessage(fields)?.pattern : undefined;
      this.log.error({ msg: 'event parked after failing every delivery', pattern, entry_id: id, deliveries, dead_letter: StreamKeys.deadEvents });
    }
    await park.exec();
  }

  /** Removes consumers of replicas long gone (nothing pending), so the group lists only real replicas. */
  private async forgetDeadConsumers(): Promise<void> {
    if (this.closing) return;
    for (const group of this.groups) await group.forgetGone(FORGET_CONSUMER_AFTER_MS).catch(() => undefined);
  }

  /** On a clean stop with nothing left pending, the consumer leaves the group (deleting it with entries would lose them). */
  private async forgetSelfIfIdle(): Promise<void> {
    for (const group of this.groups) await group.forgetSelfIfIdle();
  }
}

/**
 * Resolves once every handler of a batch finished (those that do no I/O finish within microtasks), or at the
 * event loop's next turn when some wait for I/O: their replies then go out on their own while the read blocks.
 */
async function handlersDoneOrNextTurn(handlers: Promise<void>[]): Promise<void> {
  let turn: NodeJS.Immediate | undefined;
  await Promise.race([Promise.allSettled(handlers), new Promise<void>((resolve) => (turn = setImmediate(resolve)))]);
  clearImmediate(turn);
}

interface PendingReply {
  readonly stream: string;
  readonly entryId: string;
  readonly to: string;
  readonly fields: string[];
}

type HandlerOutcome = { ok: unknown } | { err: ServiceErrorPayload; typed: boolean };

function missingHandler(pattern: string): HandlerOutcome {
  return { err: { code: 'internal', message: `this service has no handler for ${pattern}` }, typed: true };
}
