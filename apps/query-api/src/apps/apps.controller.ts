import { Controller } from '@nestjs/common';
import { QueryMessages, type Received } from '@adintel/contracts';
import { HandleMessage, Payload } from '@adintel/transport';
import { AppsService } from './apps.service';

@Controller()
export class AppsController {
  constructor(private readonly apps: AppsService) {}

  @HandleMessage(QueryMessages.searchApps)
  search(@Payload() args: Received<typeof QueryMessages.searchApps>) {
    return this.apps.search(args);
  }

  @HandleMessage(QueryMessages.getApp)
  get(@Payload() args: Received<typeof QueryMessages.getApp>) {
    return this.apps.get(args.id);
  }
}
