import { Controller } from '@nestjs/common';
import { QueryMessages, type Received } from '@adintel/contracts';
import { HandleMessage, Payload } from '@adintel/transport';
import { AdvertisersService } from './advertisers.service';

@Controller()
export class AdvertisersController {
  constructor(private readonly advertisers: AdvertisersService) {}

  @HandleMessage(QueryMessages.searchAdvertisers)
  search(@Payload() args: Received<typeof QueryMessages.searchAdvertisers>) {
    return this.advertisers.search(args);
  }

  @HandleMessage(QueryMessages.getAdvertiser)
  get(@Payload() args: Received<typeof QueryMessages.getAdvertiser>) {
    return this.advertisers.get(args.id);
  }

  @HandleMessage(QueryMessages.advertiserActivity)
  activity(@Payload() args: Received<typeof QueryMessages.advertiserActivity>) {
    return this.advertisers.activity(args);
  }
}
