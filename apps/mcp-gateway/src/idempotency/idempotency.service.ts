import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { canonicalJson } from '@adintel/contracts';
import type { IdempotencyRecord, IdempotencyRepository } from './idempotency.repository';

export interface IdempotentCall {
  readonly caller: string;
  readonly key: string;
  readonly tool: string;
  readonly args: unknown;
}

/** A claimed key: run the call, then `finish` or `abandon` it. `digest` names the call's reservation. */
export interface Ticket {
  readonly storageKey: string;
  readonly fingerprint: string;
  readonly digest: string;
}

export type Begun =
  | { readonly kind: 'run'; readonly ticket: Ticket }
  | { readonly kind: 'replay'; readonly result: unknown; readonly originallyCharged: number | 'pending' }
  | { readonly kind: 'in_flight' }
  | { readonly kind: 'mismatch' };

export interface IdempotencyTtls {
  /** How long a finished call's answer is replayed. */
  readonly resultSeconds: number;
  /** How long a running call holds its key (a crashed gateway's claim runs out after this). */
  readonly runningSeconds: number;
}

/**
 * A caller's Idempotency-Key makes a retry a replay: the first call runs and is charged; a repeat with
 * the same key, tool and arguments gets the stored answer, charged 0. Keys are per caller.
 */
export class IdempotencyService {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly repository: IdempotencyRepository,
    private readonly ttls: IdempotencyTtls,
  ) {}

  async begin(call: IdempotentCall): Promise<Begun> {
    const digest = hash(JSON.stringify([call.caller, call.key]));
    const fingerprint = hash(canonicalJson([call.tool, call.args]));
    const storageKey = `${encodeURIComponent(call.caller)}:${digest}`;
    const existing = await this.repository.claim(storageKey, { state: 'running', fingerprint }, this.ttls.runningSeconds);
    if (!existing) return { kind: 'run', ticket: { storageKey, fingerprint, digest } };
    if (existing.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (existing.state === 'running') return { kind: 'in_flight' };
    return { kind: 'replay', result: existing.result, originallyCharged: existing.charged };
  }

  async finish(ticket: Ticket, result: unknown, charged: number | 'pending'): Promise<void> {
    const record: IdempotencyRecord = { state: 'done', fingerprint: ticket.fingerprint, result, charged };
    try {
      await this.repository.store(ticket.storageKey, record, this.ttls.resultSeconds);
    } catch (error) {
      // The caller has its answer; a retry with this key then runs again once the running claim expires.
      this.logger.warn(`could not keep the answer of ${ticket.storageKey} for replay: ${(error as Error).message}`);
    }
  }

  /** A failed call costs nothing and keeps nothing: the same key may be retried at once. */
  async abandon(ticket: Ticket): Promise<void> {
    try {
      await this.repository.forget(ticket.storageKey);
    } catch (error) {
      this.logger.warn(`could not release ${ticket.storageKey}; it frees itself when its claim expires: ${(error as Error).message}`);
    }
  }
}

const hash = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);
