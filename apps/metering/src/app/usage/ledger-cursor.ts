import { ServiceError } from '@adintel/contracts';

/** The cursor of a ledger page: opaque to callers, the stream id of the last event they saw. */
const PREFIX = 'ledger:';
const STREAM_ID = /^\d{1,20}-\d{1,20}$/;

export function encodeLedgerCursor(streamId: string): string {
  return Buffer.from(`${PREFIX}${streamId}`).toString('base64url');
}

export function decodeLedgerCursor(cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const streamId = text.startsWith(PREFIX) ? text.slice(PREFIX.length) : '';
  if (!STREAM_ID.test(streamId)) {
    throw ServiceError.invalidArgument([{ field: 'cursor', message: 'is not a cursor of this list; pass pagination.next_cursor unchanged' }]);
  }
  return streamId;
}
