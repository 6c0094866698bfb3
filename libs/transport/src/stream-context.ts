import { BaseRpcContext } from '@nestjs/microservices';
import type { MessageMetadata } from './wire';

/** What a handler may ask about the message it serves: `@Ctx() ctx: StreamContext`. */
export class StreamContext extends BaseRpcContext<[string, MessageMetadata, string]> {
  getPattern(): string {
    return this.args[0];
  }

  getMetadata(): MessageMetadata {
    return this.args[1];
  }

  /** The stream entry id: the same message claimed by another replica keeps it. */
  getEntryId(): string {
    return this.args[2];
  }
}
