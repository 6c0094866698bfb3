import { Inject, Injectable } from '@nestjs/common';
import type { AdvertiserList, PagedByIdArgs, PagedNameSearchArgs, Webmaster, WebmasterList } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';
import { ListPager, nameQuery } from '../paging/list-pager';
import { AD_STORE, type AdStore } from '../store/ad-store.port';

@Injectable()
export class WebmastersService {
  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    private readonly pager: ListPager,
  ) {}

  search(args: PagedNameSearchArgs): Promise<WebmasterList> {
    const q = nameQuery(args.q);
    return this.pager.page('webmasters', { q: q ?? null }, args.cursor, (after) =>
      this.store.searchWebmasters({ limit: args.limit, ...(q ? { q } : {}), ...(after ? { after } : {}) }),
    );
  }

  async get(id: string): Promise<Webmaster> {
    const webmaster = await this.store.getWebmaster(id);
    if (!webmaster) throw ServiceError.notFound('webmaster', id);
    return webmaster;
  }

  advertisers(args: PagedByIdArgs): Promise<AdvertiserList> {
    return this.pager.page('webmaster-advertisers', { id: args.id }, args.cursor, async (after) => {
      const page = await this.store.webmasterAdvertisers(args.id, { limit: args.limit, ...(after ? { after } : {}) });
      if (!page) throw ServiceError.notFound('webmaster', args.id);
      return page;
    });
  }
}
