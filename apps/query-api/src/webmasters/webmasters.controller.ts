import { Controller } from '@nestjs/common';
import { QueryMessages, type ById, type PagedByIdArgs, type PagedNameSearchArgs } from '@adintel/contracts';
import { HandleMessage, Payload } from '@adintel/transport';
import { WebmastersService } from './webmasters.service';

@Controller()
export class WebmastersController {
  constructor(private readonly webmasters: WebmastersService) {}

  @HandleMessage(QueryMessages.searchWebmasters)
  search(@Payload() args: PagedNameSearchArgs) {
    return this.webmasters.search(args);
  }

  @HandleMessage(QueryMessages.getWebmaster)
  get(@Payload() args: ById) {
    return this.webmasters.get(args.id);
  }

  @HandleMessage(QueryMessages.webmasterAdvertisers)
  advertisers(@Payload() args: PagedByIdArgs) {
    return this.webmasters.advertisers(args);
  }
}
