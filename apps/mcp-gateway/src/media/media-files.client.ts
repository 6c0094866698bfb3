import { Injectable } from '@nestjs/common';
import { QueryMessages, type MediaFile, type MediaFileArgs } from '@adintel/contracts';
import { InjectServiceClient, ServiceClient } from '@adintel/transport';

/** The one place the gateway asks query-api for media bytes (`query.media.get`: at most MEDIA_CHUNK_BYTES an answer). */
@Injectable()
export class MediaFilesClient {
  constructor(@InjectServiceClient('query') private readonly query: ServiceClient) {}

  read(args: MediaFileArgs): Promise<MediaFile> {
    return this.query.send(QueryMessages.getMedia, args);
  }
}
