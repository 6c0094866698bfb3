import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, errors } from '@elastic/elasticsearch';
import { ServiceError } from '@adintel/contracts';
import { toServiceError } from './es-client';
import {
  type BackoffPolicy,
  backoffDelay,
  type BulkAction,
  type BulkItemFailure,
  bulkOperations,
  bulkRoundFrom,
  DEFAULT_BACKOFF,
} from './queries/bulk.query';
import { chunks } from './queries/live.query';

export interface BulkSendOptions {
  /** Named in errors. */
  operation: string;
  policy?: BackoffPolicy | undefined;
  /** Item statuses that count as done (see bulkRoundFrom). */
  tolerated?: readonly number[];
}

/**
 * Sends bulk actions with backpressure, in requests of at most LIVE_CHUNK actions. A 429 (the whole request, or
 * single items: the cluster's write queue is full) is sent again after an exponential, jittered pause, only the
 * throttled items, up to `policy.retries` times; then the call fails as `unavailable`, so the caller keeps its batch
 * and retries it later instead of losing it.
 * Each request returns once its writes are searchable (`refresh: wait_for`).
 * Any other refused item comes back as a failure with Elasticsearch's reason (nothing is dropped silently); any
 * other failed request throws the typed error of es-client.ts.
 */
export async function sendBulk(
  client: Client,
  actions: readonly BulkAction[],
  options: BulkSendOptions,
): Promise<BulkItemFailure[]> {
  const failed: BulkItemFailure[] = [];
  for (const part of chunks(actions)) failed.push(...(await sendWithRetries(client, part, options)));
  return failed;
}

async function sendWithRetries(
  client: Client,
  actions: readonly BulkAction[],
  options: BulkSendOptions,
): Promise<BulkItemFailure[]> {
  const policy = options.policy ?? DEFAULT_BACKOFF;
  const failed: BulkItemFailure[] = [];
  let pending = [...actions];
  for (let attempt = 0; pending.length; attempt++) {
    if (attempt > 0) {
      if (attempt > policy.retries) {
        throw ServiceError.of(
          'unavailable',
          `Elasticsearch is overloaded (429) on ${options.operation}: ${pending.length} actions still refused after ${policy.retries} retries`,
        );
      }
      await sleep(backoffDelay(attempt - 1, policy));
    }
    let response;
    try {
      response = await client.bulk({ operations: bulkOperations(pending), refresh: 'wait_for' });
    } catch (error) {
      if (error instanceof errors.ResponseError && error.statusCode === 429) continue;
      throw toServiceError(error, options.operation);
    }
    const round = bulkRoundFrom(pending, response, options.tolerated);
    failed.push(...round.failed);
    pending = round.throttled;
  }
  return failed;
}
