import type { estypes } from '@elastic/elasticsearch';

/** One bulk action, its document (none for a delete) and the ad or entity id it is about. */
export interface BulkAction {
  action: estypes.BulkOperationContainer;
  document?: unknown;
  id: string;
}

/** The `operations` body of a bulk request: each action line, followed by its document when it has one. */
export function bulkOperations(actions: readonly BulkAction[]): unknown[] {
  return actions.flatMap((a) => (a.document === undefined ? [a.action] : [a.action, a.document]));
}

export interface BulkItemFailure {
  action: BulkAction;
  status: number;
  /** `<error type>: <reason>` as Elasticsearch gave them. */
  reason: string;
}

/** What one bulk round left to do: items refused with 429 (to send again after a pause) and items that failed for good. */
export interface BulkRound {
  throttled: BulkAction[];
  failed: BulkItemFailure[];
}

/**
 * Sorts the items of a bulk response (one per action, in the order sent) into done, throttled (429) and
 * failed. A delete of a document already gone (404) is done: it is gone as asked (any other 404, such as an
 * index write to a missing alias, is a failure). `tolerated` statuses count as done too: an entity write that
 * lost to a newer computation (409, see live.query.ts).
 */
export function bulkRoundFrom(sent: readonly BulkAction[], response: estypes.BulkResponse, tolerated: readonly number[] = []): BulkRound {
  const round: BulkRound = { throttled: [], failed: [] };
  response.items.forEach((item, position) => {
    const action = sent[position];
    const [type, result] = Object.entries(item)[0] ?? [];
    if (!action || !result) return;
    const status = result.status;
    if ((status >= 200 && status < 300) || tolerated.includes(status) || (type === 'delete' && status === 404)) return;
    if (status === 429) round.throttled.push(action);
    else {
      const error = result.error;
      round.failed.push({ action, status, reason: `${error?.type ?? 'error'}: ${error?.reason ?? 'no reason given'}` });
    }
  });
  // A response with fewer items than actions sent would hide a loss: those actions count as failed.
  for (const action of sent.slice(response.items.length)) {
    round.failed.push({ action, status: 0, reason: 'missing_item: the bulk response had no item for this action' });
  }
  return round;
}

/** Retries of a throttled (429) bulk request or item: exponential backoff with full jitter, bounded. */
export interface BackoffPolicy {
  /** Rounds sent again after the first one (so at most retries + 1 attempts). */
  retries: number;
  /** Ceiling of the first pause, doubled each retry. */
  baseMs: number;
  /** Highest ceiling of one pause. */
  maxMs: number;
}

/** At most 6 retries, pauses under 0.25, 0.5, 1, 2, 4, 8 s: under 16 s in all before the batch fails as unavailable. */
export const DEFAULT_BACKOFF: BackoffPolicy = { retries: 6, baseMs: 250, maxMs: 8_000 };

/**
 * Pause before retry `attempt` (0-based): uniform in [0, min(maxMs, baseMs * 2^attempt)). Full jitter spreads
 * the retries of writers that were throttled together, instead of sending them back in one wave.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(policy.maxMs, policy.baseMs * 2 ** attempt));
}
