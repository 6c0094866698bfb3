import type { ServiceErrorPayload } from '@adintel/contracts';

/** What travels in one request or event entry. Events have no correlation id, reply stream or deadline. */
export interface WireMessage {
  readonly pattern: string;
  readonly data: unknown;
  readonly metadata: MessageMetadata;
  /** Present on requests only. */
  readonly reply?: { readonly id: string; readonly to: string; readonly deadline: number };
  /** An event re-sent from the dead-letter stream goes to the group that parked it, not to every subscriber. */
  readonly onlyFor?: string;
}

export interface MessageMetadata {
  readonly request_id?: string;
  /** W3C trace context of the caller's span. */
  readonly traceparent?: string;
}

export type WireReply = { readonly id: string } & ({ readonly ok: unknown } | { readonly err: ServiceErrorPayload });

const F = { pattern: 'p', data: 'd', id: 'c', replyTo: 'r', deadline: 'dl', requestId: 'rid', traceparent: 'tp', onlyFor: 'g', ok: 'ok', err: 'err' } as const;

export function encodeMessage(message: WireMessage): string[] {
  const fields: string[] = [F.pattern, message.pattern, F.data, JSON.stringify(message.data ?? null)];
  if (message.reply) fields.push(F.id, message.reply.id, F.replyTo, message.reply.to, F.deadline, String(message.reply.deadline));
  if (message.metadata.request_id) fields.push(F.requestId, message.metadata.request_id);
  if (message.metadata.traceparent) fields.push(F.traceparent, message.metadata.traceparent);
  if (message.onlyFor) fields.push(F.onlyFor, message.onlyFor);
  return fields;
}

/** Returns undefined for an entry that is not a transport message (it is acked and skipped). */
export function decodeMessage(fields: string[]): WireMessage | undefined {
  const f = toRecord(fields);
  const pattern = f[F.pattern];
  const data = f[F.data];
  if (pattern === undefined || data === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return undefined;
  }
  const metadata: MessageMetadata = {
    ...(f[F.requestId] ? { request_id: f[F.requestId] } : {}),
    ...(f[F.traceparent] ? { traceparent: f[F.traceparent] } : {}),
  };
  const id = f[F.id];
  const to = f[F.replyTo];
  const deadline = Number(f[F.deadline]);
  const reply = id && to && Number.isFinite(deadline) ? { id, to, deadline } : undefined;
  const onlyFor = f[F.onlyFor];
  return { pattern, data: parsed, metadata, ...(reply ? { reply } : {}), ...(onlyFor ? { onlyFor } : {}) };
}

export function encodeReply(reply: WireReply): string[] {
  return 'err' in reply ? [F.id, reply.id, F.err, JSON.stringify(reply.err)] : [F.id, reply.id, F.ok, JSON.stringify(reply.ok ?? null)];
}

export function decodeReply(fields: string[]): WireReply | undefined {
  const f = toRecord(fields);
  const id = f[F.id];
  if (!id) return undefined;
  try {
    const err = f[F.err];
    const ok = f[F.ok];
    if (err !== undefined) return { id, err: JSON.parse(err) as ServiceErrorPayload };
    if (ok !== undefined) return { id, ok: JSON.parse(ok) as unknown };
  } catch {
    return undefined;
  }
  return undefined;
}

/** A stream entry's fields by name; a name given twice keeps its last value. */
export function toRecord(fields: string[]): Record<string, string | undefined> {
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i] as string] = fields[i + 1] as string;
  return record;
}
