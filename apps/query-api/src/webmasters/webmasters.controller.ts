import { Controller } from '@nestjs/common';
import { QueryMessages, type Received } from '@adintel/contracts';
import { HandleMessage, Payload } from '@adintel/transport';
import { WebmastersService } from './webmasters.service';

@Controller()
export class WebmastersController {
  constructor(private readonly webmasters: WebmastersService) {}

  @HandleMessage(QueryMessages.searchWebmasters)
  search(@Payload() args: Received<typeof QueryMessages.searchWebmasters>) {
    return this.webmasters.search(args);
  }

  @HandleMessage(QueryMessages.getWebmaster)
  get(@Payload() args: Received<typeof QueryMessages.getWebmaster>) {
    return this.webmasters.get(args.id);
  }

  @HandleMessage(QueryMessages.webmasterAdvertisers)
  advertisers(@Payload() args: Received<typeof QueryMessages.webmasterAdvertisers>) {
    return this.webmasters.advertisers(args);
  }
}
