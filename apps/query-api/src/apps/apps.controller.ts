import { Controller } from '@nestjs/common';
import { QueryMessages, type ById, type PagedNameSearchArgs } from '@adintel/contracts';
import { HandleMessage, Payload } from '@adintel/transport';
import { AppsService } from './apps.service';

@Controller()
export class AppsController {
  constructor(private readonly apps: AppsService) {}

  @HandleMessage(QueryMessages.searchApps)
  search(@Payload() args: PagedNameSearchArgs) {
    return this.apps.search(args);
  }

  @HandleMessage(QueryMessages.getApp)
  get(@Payload() args: ById) {
    return this.apps.get(args.id);
  }
}
