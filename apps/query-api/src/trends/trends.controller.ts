import { Controller } from '@nestjs/common';
import { QueryMessages, type TrendsArgs } from '@adintel/contracts';
import { HandleMessage, Payload } from '@adintel/transport';
import { TrendsService } from './trends.service';

@Controller()
export class TrendsController {
  constructor(private readonly trends: TrendsService) {}

  @HandleMessage(QueryMessages.trends)
  get(@Payload() args: TrendsArgs) {
    return this.trends.trends(args);
  }
}
