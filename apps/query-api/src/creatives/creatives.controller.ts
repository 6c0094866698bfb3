import { Controller } from '@nestjs/common';
import { QueryMessages, type Received } from '@adintel/contracts';
import { HandleMessage, Payload } from '@adintel/transport';
import { CreativesService } from './creatives.service';

@Controller()
export class CreativesController {
  constructor(private readonly creatives: CreativesService) {}

  @HandleMessage(QueryMessages.searchCreatives)
  search(@Payload() args: Received<typeof QueryMessages.searchCreatives>) {
    return this.creatives.search(args);
  }

  @HandleMessage(QueryMessages.getCreative)
  get(@Payload() args: Received<typeof QueryMessages.getCreative>) {
    return this.creatives.get(args.id);
  }
}
