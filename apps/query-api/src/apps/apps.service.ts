import { Inject, Injectable } from '@nestjs/common';
import type { App, AppList, PagedNameSearchArgs } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';
import { ListPager, nameQuery } from '../paging/list-pager';
import { AD_STORE, type AdStore } from '../store/ad-store.port';

@Injectable()
export class AppsService {
  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    private readonly pager: ListPager,
  ) {}

  search(args: PagedNameSearchArgs): Promise<AppList> {
    const q = nameQuery(args.q);
    return this.pager.page('apps', { q: q ?? null }, args.cursor, (after) =>
      this.store.searchApps({ limit: args.limit, ...(q ? { q } : {}), ...(after ? { after } : {}) }),
    );
  }

  async get(id: string): Promise<App> {
    const app = await this.store.getApp(id);
    if (!app) throw ServiceError.notFound('app', id);
    return app;
  }
}
