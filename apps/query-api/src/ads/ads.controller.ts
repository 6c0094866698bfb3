import { Controller } from '@nestjs/common';
import { QueryMessages, type AdsBreakdownArgs, type ById, type CountAdsArgs, type SearchAdsArgs } from '@adintel/contracts';
import { HandleMessage, Payload } from '@adintel/transport';
import { AdsService } from './ads.service';

@Controller()
export class AdsController {
  constructor(private readonly ads: AdsService) {}

  @HandleMessage(QueryMessages.searchAds)
  search(@Payload() args: SearchAdsArgs) {
    return this.ads.search(args);
  }

  @HandleMessage(QueryMessages.getAd)
  get(@Payload() args: ById) {
    return this.ads.get(args.id);
  }

  @HandleMessage(QueryMessages.countAds)
  count(@Payload() args: CountAdsArgs) {
    return this.ads.count(args);
  }

  @HandleMessage(QueryMessages.adsBreakdown)
  breakdown(@Payload() args: AdsBreakdownArgs) {
    return this.ads.breakdown(args);
  }
}
