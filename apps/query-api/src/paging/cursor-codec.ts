import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson, ServiceError } from '@adintel/contracts';
import type { SortKey } from '../store/ad-store.port';

/** Cursors older than this are stale: the data behind a page moves on. */
export const CURSOR_TTL_MS = 24 * 60 * 60 * 1000;

interface CursorBody {
  /** last sort value and id */
  k: [string | number, string];
  /** issued at (ms) */
  t: number;
}

const invalid = (message: string) => ServiceError.invalidArgument([{ field: 'cursor', message }]);

/**
 * Opaque, signed cursors bound to the query they came from: HMAC-SHA256 over the list name, the
 * normalised query (filters + sort), the data version and the position. A forged, foreign (other
 * filters or list) or stale (expired, or the data was reloaded) cursor is an invalid_argument naming
 * `cursor`, never a silent first page.
 */
export class CursorCodec {
  constructor(
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {}

  encode(scope: string, binding: unknown, dataVersion: string, key: SortKey): string {
    const body = Buffer.from(JSON.stringify({ k: [key.value, key.id], t: this.now() } satisfies CursorBody)).toString('base64url');
    return `${body}.${this.sign(scope, binding, dataVersion, body)}`;
  }

  decode(scope: string, binding: unknown, dataVersion: string, cursor: string): SortKey {
    const [body, signature, ...rest] = cursor.split('.');
    if (!body || !signature || rest.length) throw invalid('is not a cursor this service issued');
    const expected = Buffer.from(this.sign(scope, binding, dataVersion, body));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      throw invalid('does not belong to this query (pass the same filters and sort as the request that returned it), or the data was reloaded since');
    }
    let parsed: CursorBody;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorBody;
    } catch {
      throw invalid('is not a cursor this service issued');
    }
    if (!Array.isArray(parsed.k) || typeof parsed.k[1] !== 'string' || typeof parsed.t !== 'number') {
      throw invalid('is not a cursor this service issued');
    }
    if (this.now() - parsed.t > CURSOR_TTL_MS) throw invalid('has expired: start again without a cursor');
    return { value: parsed.k[0], id: parsed.k[1] };
  }

  private sign(scope: string, binding: unknown, dataVersion: string, body: string): string {
    return createHmac('sha256', this.secret)
      .update(`${scope}\n${canonicalJson(binding)}\n${dataVersion}\n${body}`)
      .digest('base64url');
  }
}
