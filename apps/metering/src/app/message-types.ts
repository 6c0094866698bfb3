import type { MessageDefinition } from '@adintel/contracts';
import type { z } from 'zod';

/** A message's request as a handler receives it: validated, defaults applied. */
export type Received<M extends MessageDefinition> = z.infer<M['request']>;
