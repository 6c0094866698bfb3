import { Controller } from '@nestjs/common';
import { QueryMessages, type Received } from '@adintel/contracts';
import { HandleMessage, Payload } from '@adintel/transport';
import { AdsService } from './ads.service';

@Controller()
export class AdsController {
  constructor(private readonly ads: AdsService) {}

  @HandleMessage(QueryMessages.searchAds)
  search(@Payload() args: Received<typeof QueryMessages.searchAds>) {
    return this.ads.search(args);
  }

  @HandleMessage(QueryMessages.getAd)
  get(@Payload() args: Received<typeof QueryMessages.getAd>) {
    return this.ads.get(args.id);
  }

  @HandleMessage(QueryMessages.countAds)
  count(@Payload() args: Received<typeof QueryMessages.countAds>) {
    return this.ads.count(args);
  }

  @HandleMessage(QueryMessages.adsBreakdown)
  breakdown(@Payload() args: Received<typeof QueryMessages.adsBreakdown>) {
    return this.ads.breakdown(args);
  }
}
