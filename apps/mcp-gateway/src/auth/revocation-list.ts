import { Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Redis } from '@adintel/redis';
import type { Caller } from './caller';

/** Entries read per XREAD; a longer backlog is read in several, at once. */
const BATCH = 1_000;

/**
 * The access tokens and grants the auth server revoked, followed from its Redis stream (`kind`, `id`, `until` in
 * epoch seconds; see the auth server's revocation-list.ts) into memory, so checking a token costs a Map lookup and
 * no round trip. Read once at start-up (the whole stream: the auth server trims it to one token lifetime), then
 * every `pollMs`. An entry is forgotten once `until` passed: no token it could refuse is still alive.
 * While Redis cannot be read, the list stays as it was (tokens still verify): revocation is then late, never wrong.
 */
export class RevocationList implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RevocationList.name);
  /** `token:<jti>` / `grant:<id>` -> until (epoch seconds). */
  private readonly revoked = new Map<string, number>();
  private lastId = '0-0';
  private timer?: NodeJS.Timeout;
  private reading?: Promise<void>;

  constructor(
    private readonly redis: Redis,
    private readonly options: { readonly stream: string; readonly pollMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  async onModuleInit() {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), this.options.pollMs).unref();
  }

  onApplicationShutdown() {
    clearInterval(this.timer);
  }

  isRevoked(caller: Caller): boolean {
    const nowSeconds = this.now() / 1000;
    const listed = (key: string) => (this.revoked.get(key) ?? 0) > nowSeconds;
    return (caller.tokenId !== undefined && listed(`token:${caller.tokenId}`)) || (caller.grantId !== undefined && listed(`grant:${caller.grantId}`));
  }

  /** Reads what was added since the last read; one read at a time. */
  poll(): Promise<void> {
    this.reading ??= this.readNew().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async readNew() {
    try {
      for (;;) {
        const answer = (await this.redis.xread('COUNT', BATCH, 'STREAMS', this.options.stream, this.lastId)) as [string, [string, string[]][]][] | null;
        const entries = answer?.[0]?.[1] ?? [];
        for (const [id, fields] of entries) {
          this.lastId = id;
          const entry = fieldsOf(fields);
          if ((entry.kind === 'token' || entry.kind === 'grant') && entry.id) this.revoked.set(`${entry.kind}:${entry.id}`, Number(entry.until ?? 0));
        }
        if (entries.length < BATCH) break;
      }
      const nowSeconds = this.now() / 1000;
      for (const [key, until] of this.revoked) if (until <= nowSeconds) this.revoked.delete(key);
    } catch (error) {
      this.logger.warn(`cannot read the revocation stream ${this.options.stream}: ${(error as Error).message}`);
    }
  }
}

function fieldsOf(flat: string[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) record[flat[i] as string] = flat[i + 1] as string;
  return record;
}
