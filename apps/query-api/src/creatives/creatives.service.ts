import { Inject, Injectable } from '@nestjs/common';
import type { Creative, CreativeList, PagedNameSearchArgs } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';
import { ListPager, nameQuery } from '../paging/list-pager';
import { AD_STORE, type AdStore } from '../store/ad-store.port';

@Injectable()
export class CreativesService {
  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    private readonly pager: ListPager,
  ) {}

  search(args: PagedNameSearchArgs): Promise<CreativeList> {
    const q = nameQuery(args.q);
    return this.pager.page('creatives', { q: q ?? null }, args.cursor, (after) =>
      this.store.searchCreatives({ limit: args.limit, ...(q ? { q } : {}), ...(after ? { after } : {}) }),
    );
  }

  async get(id: string): Promise<Creative> {
    const creative = await this.store.getCreative(id);
    if (!creative) throw ServiceError.notFound('creative', id);
    return creative;
  }
}
