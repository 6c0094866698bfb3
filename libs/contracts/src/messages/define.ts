import { z } from 'zod';

/** A message between services: its pattern and the schemas of what is sent and answered. */
export interface MessageDefinition<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  readonly pattern: string;
  readonly request: Req;
  readonly response: Res;
}

export const defineMessage = <Req extends z.ZodType, Res extends z.ZodType>(
  pattern: string,
  request: Req,
  response: Res,
): MessageDefinition<Req, Res> => ({ pattern, request, response });

export type RequestOf<M extends MessageDefinition> = z.input<M['request']>;
/** A message's request as a handler receives it: validated, defaults applied. */
export type Received<M extends MessageDefinition> = z.output<M['request']>;
export type ResponseOf<M extends MessageDefinition> = z.infer<M['response']>;

export const Pong = z.object({ service: z.string(), at: z.iso.datetime() });
export type Pong = z.infer<typeof Pong>;
