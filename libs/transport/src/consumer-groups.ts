import type { Redis } from '@adintel/redis';

/** Creates the group (and the stream) unless it exists; BUSYGROUP means another replica made it first. */
export async function ensureGroup(redis: Redis, stream: string, group: string, startId: '$' | '0'): Promise<void> {
  try {
    await redis.xgroup('CREATE', stream, group, startId, 'MKSTREAM');
  } catch (error) {
    if (!(error as Error).message.includes('BUSYGROUP')) throw error;
  }
}

export interface ConsumerInfo {
  readonly name: string;
  readonly pending: number;
  /** Milliseconds since the consumer last read, claimed or heartbeat. */
  readonly idle: number;
}

/** XINFO CONSUMERS as objects; an empty list when the stream or group does not exist yet. */
export async function listConsumers(redis: Redis, stream: string, group: string): Promise<ConsumerInfo[]> {
  let rows: unknown[];
  try {
    rows = (await redis.xinfo('CONSUMERS', stream, group)) as unknown[];
  } catch (error) {
    if (/no such key|NOGROUP/i.test((error as Error).message)) return [];
    throw error;
  }
  return rows.map((row) => {
    const fields = row as (string | number)[];
    const get = (key: string) => fields[fields.indexOf(key) + 1];
    return { name: String(get('name')), pending: Number(get('pending')), idle: Number(get('idle')) };
  });
}

/** Stream entries as [id, fields] pairs, from XREADGROUP / XAUTOCLAIM replies. */
export type StreamEntry = [id: string, fields: string[] | null];

/** How far a service's group is behind on a stream: entries not yet delivered (lag) and delivered but not acked. */
export async function groupBacklog(redis: Redis, stream: string, group: string): Promise<{ lag: number; pending: number } | undefined> {
  let rows: unknown[];
  try {
    rows = (await redis.xinfo('GROUPS', stream)) as unknown[];
  } catch (error) {
    if (/no such key/i.test((error as Error).message)) return undefined;
    throw error;
  }
  for (const row of rows) {
    const fields = row as (string | number | null)[];
    const get = (key: string) => fields[fields.indexOf(key) + 1];
    if (get('name') === group) return { lag: Number(get('lag') ?? 0), pending: Number(get('pending')) };
  }
  return undefined;
}
