import { ServiceError } from '@adintel/contracts';
import type { ChangePosition } from '../store/ad-store.port';

/**
 * search_ads' `pagination.watermark`: a store's change position (ad-store.port.ts ChangePosition) as an opaque string.
 * Not signed: it only selects which changes a caller sees of data it may search anyway; what it names is checked by
 * the store (another store's or a pruned position is `gone`).
 */
const PREFIX = 'w1.';

export function encodeWatermark(position: ChangePosition): string {
  return PREFIX + Buffer.from(JSON.stringify([position.store, position.seq])).toString('base64url');
}

/** The position a watermark names; a string that is not one is a 400 naming `changed_since`. */
export function decodeWatermark(watermark: string): ChangePosition {
  const malformed = () =>
    ServiceError.invalidArgument([
      { field: 'changed_since', message: 'is not a watermark: pass pagination.watermark of an earlier search_ads answer unchanged' },
    ]);
  if (!watermark.startsWith(PREFIX)) throw malformed();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(watermark.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw malformed();
  const [store, seq] = parsed as unknown[];
  if (typeof store !== 'string' || typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) throw malformed();
  return { store, seq };
}

/** A watermark the store cannot honour: never an empty answer, always "re-baseline". */
export function watermarkGone(outcome: 'expired' | 'foreign', retentionDays: number): ServiceError {
  const why =
    outcome === 'expired'
      ? `is older than the ${retentionDays}-day window changes are kept for`
      : 'was not issued by this store, or the data was reloaded since';
  return ServiceError.of(
    'gone',
    `changed_since ${why}: re-baseline with a plain search_ads (without changed_since) and keep its pagination.watermark`,
    { errors: [{ field: 'changed_since', message: why }] },
  );
}
