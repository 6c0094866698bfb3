import { Controller } from '@nestjs/common';
import { QueryMessages, type Received } from '@adintel/contracts';
import { HandleMessage, Payload } from '@adintel/transport';
import { DomainsService } from './domains.service';

@Controller()
export class DomainsController {
  constructor(private readonly domains: DomainsService) {}

  @HandleMessage(QueryMessages.searchDomains)
  search(@Payload() args: Received<typeof QueryMessages.searchDomains>) {
    return this.domains.search(args);
  }

  @HandleMessage(QueryMessages.getDomain)
  get(@Payload() args: Received<typeof QueryMessages.getDomain>) {
    return this.domains.get(args.domain);
  }
}
