import { Controller } from '@nestjs/common';
import { MeteringMessages, type Received } from '@adintel/contracts';
import { HandleMessage, Payload } from '@adintel/transport';
import { UsageService } from './usage.service';

@Controller()
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  @HandleMessage(MeteringMessages.getUsage)
  getUsage(@Payload() request: Received<typeof MeteringMessages.getUsage>) {
    return this.usage.usage(request.caller_id);
  }

  @HandleMessage(MeteringMessages.listUsageEvents)
  listUsageEvents(@Payload() request: Received<typeof MeteringMessages.listUsageEvents>) {
    return this.usage.events(request.caller_id, request.limit, request.cursor);
  }

  @HandleMessage(MeteringMessages.dailyUsage)
  dailyUsage(@Payload() request: Received<typeof MeteringMessages.dailyUsage>) {
    return this.usage.daily(request.owner_id, request.date_from, request.date_to);
  }
}
