import { Controller } from '@nestjs/common';
import { QueryMessages, type Received } from '@adintel/contracts';
import { HandleMessage, Payload } from '@adintel/transport';
import { TrendsService } from './trends.service';

@Controller()
export class TrendsController {
  constructor(private readonly trends: TrendsService) {}

  @HandleMessage(QueryMessages.trends)
  get(@Payload() args: Received<typeof QueryMessages.trends>) {
    return this.trends.trends(args);
  }
}
