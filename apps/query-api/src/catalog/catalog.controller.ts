import { Controller } from '@nestjs/common';
import { QueryMessages, type Pong } from '@adintel/contracts';
import { HandleMessage } from '@adintel/transport';
import { CatalogService } from './catalog.service';

@Controller()
export class CatalogController {
  constructor(private readonly catalog: CatalogService) {}

  @HandleMessage(QueryMessages.catalog)
  get() {
    return this.catalog.catalog();
  }

  @HandleMessage(QueryMessages.ping)
  ping(): Pong {
    return { service: 'query-api', at: new Date().toISOString() };
  }
}
