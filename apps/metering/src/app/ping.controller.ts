import { Controller } from '@nestjs/common';
import { MeteringMessages, type Pong } from '@adintel/contracts';
import { HandleMessage } from '@adintel/transport';
import { Clock } from './clock/clock';

@Controller()
export class PingController {
  constructor(private readonly clock: Clock) {}

  @HandleMessage(MeteringMessages.ping)
  ping(): Pong {
    return { service: 'metering', at: this.clock.now().toISOString() };
  }
}
