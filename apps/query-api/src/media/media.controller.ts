import { Controller } from '@nestjs/common';
import { QueryMessages, type Received } from '@adintel/contracts';
import { HandleMessage, Payload } from '@adintel/transport';
import { MediaService } from './media.service';

@Controller()
export class MediaController {
  constructor(private readonly media: MediaService) {}

  @HandleMessage(QueryMessages.locateMedia)
  locate(@Payload() args: Received<typeof QueryMessages.locateMedia>) {
    return this.media.locate(args);
  }
}
