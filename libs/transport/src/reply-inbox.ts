import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { closeRedis, createRedis, type Redis } from '@adintel/redis';
import type { StreamEntry } from './consumer-groups';
import { StreamKeys } from './stream-keys';
import { decodeReply, type WireReply } from './wire';

/**
 * The broker connections of one client process, shared by every ServiceClient on the same broker URL:
 * one connection for commands (XADD, XINFO) and one that reads this process's reply stream with a blocking
 * XREAD for as long as the process lives. A call therefore costs one XADD; no per-call SUBSCRIBE.
 */
export class ClientBroker {
  private static readonly open = new Map<string, ClientBroker>();

  /** The process's broker for `url`; release it with `release()` when the client closes. */
  static acquire(url: string): ClientBroker {
    let broker = ClientBroker.open.get(url);
    if (!broker) {
      broker = new ClientBroker(url);
      ClientBroker.open.set(url, broker);
    }
    broker.users += 1;
    return broker;
  }

  readonly inbox: string;
  readonly commands: Redis;
  private readonly reader: Redis;
  private readonly waiting = new Map<string, (reply: WireReply) => void>();
  private correlations = 0;
  private readonly logger = new Logger('Transport:client');
  private users = 0;
  private closed = false;
  private readonly loop: Promise<void>;

  private constructor(private readonly url: string) {
    this.inbox = StreamKeys.replies(`${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`);
    // A call fails at once (-> unavailable) while the broker is down, instead of queueing until the timeout.
    this.commands = createRedis({ url, name: 'transport:client', maxRetriesPerRequest: 0 });
    this.reader = createRedis({ url, name: 'transport:client:inbox', blocking: true });
    this.loop = this.readReplies();
  }

  /** Unique within this process's inbox, which is all a correlation id has to be (the inbox is per process). */
  nextCorrelationId(): string {
    this.correlations += 1;
    return this.correlations.toString(36);
  }

  /** Waits for the reply with this correlation id (delivered once); the returned function stops waiting. */
  expect(id: string, onReply: (reply: WireReply) => void): () => void {
    this.waiting.set(id, onReply);
    return () => this.waiting.delete(id);
  }

  async release(): Promise<void> {
    this.users -= 1;
    if (this.users > 0 || this.closed) return;
    this.closed = true;
    ClientBroker.open.delete(this.url);
    await this.commands.del(this.inbox).catch(() => undefined);
    await closeRedis(this.commands);
    this.reader.disconnect();
    await this.loop;
  }

  private async readReplies(): Promise<void> {
    // The inbox key is new for every process, so reading from its very start misses nothing.
    let lastId = '0-0';
    while (!this.closed) {
      let reply: [string, StreamEntry[]][] | null;
      try {
        reply = (await this.reader.xread('COUNT', 256, 'BLOCK', 0, 'STREAMS', this.inbox, lastId)) as [string, StreamEntry[]][] | null;
      } catch (error) {
        if (this.closed) return;
        this.logger.warn(`reading replies: ${(error as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      for (const [, entries] of reply ?? []) {
        for (const [id, fields] of entries) {
          lastId = id;
          const decoded = fields ? decodeReply(fields) : undefined;
          const onReply = decoded && this.waiting.get(decoded.id);
          if (onReply) {
            this.waiting.delete((decoded as WireReply).id);
            onReply(decoded as WireReply);
          }
        }
      }
    }
  }
}
