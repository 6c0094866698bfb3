import { Controller } from '@nestjs/common';
import { QueryMessages, type AdvertiserActivityArgs, type ById, type NameSearchArgs } from '@adintel/contracts';
import { HandleMessage, Payload } from '@adintel/transport';
import { AdvertisersService } from './advertisers.service';

@Controller()
export class AdvertisersController {
  constructor(private readonly advertisers: AdvertisersService) {}

  @HandleMessage(QueryMessages.searchAdvertisers)
  search(@Payload() args: NameSearchArgs) {
    return this.advertisers.search(args);
  }

  @HandleMessage(QueryMessages.getAdvertiser)
  get(@Payload() args: ById) {
    return this.advertisers.get(args.id);
  }

  @HandleMessage(QueryMessages.advertiserActivity)
  activity(@Payload() args: AdvertiserActivityArgs) {
    return this.advertisers.activity(args);
  }
}
