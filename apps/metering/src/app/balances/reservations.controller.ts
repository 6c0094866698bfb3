import { Controller } from '@nestjs/common';
import { MeteringMessages, type Received } from '@adintel/contracts';
import { HandleMessage, Payload } from '@adintel/transport';
import { ReservationsService } from './reservations.service';

@Controller()
export class ReservationsController {
  constructor(private readonly reservations: ReservationsService) {}

  @HandleMessage(MeteringMessages.reserve)
  reserve(@Payload() request: Received<typeof MeteringMessages.reserve>) {
    return this.reservations.reserve(request);
  }

  @HandleMessage(MeteringMessages.settle)
  settle(@Payload() request: Received<typeof MeteringMessages.settle>) {
    return this.reservations.settle(request.request_id, request.caller_id, request.charged);
  }

  @HandleMessage(MeteringMessages.release)
  release(@Payload() request: Received<typeof MeteringMessages.release>) {
    return this.reservations.release(request.request_id, request.caller_id);
  }
}
