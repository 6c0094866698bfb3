import { Inject, Injectable } from '@nestjs/common';
import { getDomain } from 'tldts';
import type { Domain, DomainList, PagedNameSearchArgs } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';
import { ListPager, nameQuery } from '../paging/list-pager';
import { AD_STORE, type AdStore } from '../store/ad-store.port';

@Injectable()
export class DomainsService {
  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    private readonly pager: ListPager,
  ) {}

  search(args: PagedNameSearchArgs): Promise<DomainList> {
    const q = nameQuery(args.q);
    return this.pager.page('domains', { q: q ?? null }, args.cursor, (after) =>
      this.store.searchDomains({ limit: args.limit, ...(q ? { q } : {}), ...(after ? { after } : {}) }),
    );
  }

  /** A host is looked up under its registrable domain (promo.example.com -> example.com). */
  async get(domain: string): Promise<Domain> {
    const registrable = getDomain(domain);
    if (!registrable) {
      throw ServiceError.invalidArgument([{ field: 'domain', message: 'has no registrable domain under a public suffix' }]);
    }
    const found = await this.store.getDomain(registrable);
    if (!found) throw ServiceError.of('not_found', `no ads land on ${registrable}`);
    return found;
  }
}
