import { Injectable } from '@nestjs/common';
import type { CursorPagination } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';
import type { KeysetPage, SortKey } from '../store/ad-store.port';
import { normaliseName } from '../store/text';
import { CursorCodec } from './cursor-codec';
import { DataWindowService } from './data-window.service';

/** `q` of a name search, normalised (words joined by one space); undefined = list everything. */
export function nameQuery(q: string | undefined): string | undefined {
  if (q === undefined) return undefined;
  const normalised = normaliseName(q);
  if (!normalised) throw ServiceError.invalidArgument([{ field: 'q', message: 'must contain at least one letter or digit' }]);
  return normalised;
}

/** Runs one page of a keyset list and signs its next cursor, bound to the list and its query. */
@Injectable()
export class ListPager {
  constructor(
    private readonly cursors: CursorCodec,
    private readonly dataWindow: DataWindowService,
  ) {}

  async page<T>(
    scope: string,
    binding: unknown,
    cursor: string | undefined,
    fetch: (after: SortKey | undefined) => Promise<KeysetPage<T>>,
  ): Promise<{ data: T[]; pagination: CursorPagination }> {
    const version = await this.dataWindow.version();
    const after = cursor ? this.cursors.decode(scope, binding, version, cursor) : undefined;
    const page = await fetch(after);
    return {
      data: page.rows,
      pagination: {
        next_cursor: page.hasMore && page.lastKey ? this.cursors.encode(scope, binding, version, page.lastKey) : null,
        has_more: page.hasMore,
      },
    };
  }
}
