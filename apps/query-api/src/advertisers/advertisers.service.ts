import { Inject, Injectable } from '@nestjs/common';
import type { Advertiser, AdvertiserActivity, AdvertiserActivityArgs, AdvertiserMatches, NameSearchArgs } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';
import { DataWindowService } from '../paging/data-window.service';
import { nameQuery } from '../paging/list-pager';
import { AD_STORE, type AdStore } from '../store/ad-store.port';

@Injectable()
export class AdvertisersService {
  constructor(
    @Inject(AD_STORE) private readonly store: AdStore,
    private readonly dataWindow: DataWindowService,
  ) {}

  async search(args: NameSearchArgs): Promise<AdvertiserMatches> {
    const q = nameQuery(args.q);
    return { data: await this.store.searchAdvertisers({ limit: args.limit, ...(q ? { q } : {}) }) };
  }

  async get(id: string): Promise<Advertiser> {
    const advertiser = await this.store.getAdvertiser(id);
    if (!advertiser) throw ServiceError.notFound('advertiser', id);
    return advertiser;
  }

  async activity(args: AdvertiserActivityArgs): Promise<AdvertiserActivity> {
    const window = await this.dataWindow.window(args.date_from, args.date_to);
    const days = await this.store.advertiserActivity(args.id, window);
    if (!days) throw ServiceError.notFound('advertiser', args.id);
    return { advertiser_id: args.id, date_from: window.from, date_to: window.to, data: days };
  }
}
