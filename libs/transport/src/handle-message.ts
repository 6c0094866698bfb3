import { applyDecorators, UseFilters, UsePipes, type PipeTransform } from '@nestjs/common';
import { EventPattern, MessagePattern } from '@nestjs/microservices';
import { fieldErrorsFrom, ServiceError, type MessageDefinition } from '@adintel/contracts';
import type { z } from 'zod';
import { RpcErrorFilter } from './rpc-error.filter';

/** Validates a message at the receiving service's own boundary: bad input is a typed error, never a crash. */
export class MessageValidationPipe implements PipeTransform {
  constructor(private readonly schema: z.ZodType) {}

  transform(value: unknown) {
    const result = this.schema.safeParse(value ?? {});
    if (!result.success) throw ServiceError.invalidArgument(fieldErrorsFrom(result.error));
    return result.data;
  }
}

/**
 * Serves one message of the registry; `@Payload()` then receives its validated request.
 * The error filter is bound here, per handler, because a hybrid app (`serveTransport`) registers its
 * message handlers inside `connectMicroservice()`, before a global filter could be added.
 */
export const HandleMessage = (message: MessageDefinition) =>
  applyDecorators(
    MessagePattern(message.pattern),
    UsePipes(new MessageValidationPipe(message.request)),
    UseFilters(new RpcErrorFilter()),
  );

/**
 * Handles one event of the registry (no reply). The event is acked once the handler succeeded or failed
 * with a typed error; an unexpected failure leaves it pending, so it is retried.
 */
export const HandleEvent = (message: MessageDefinition) =>
  applyDecorators(
    EventPattern(message.pattern) as MethodDecorator,
    UsePipes(new MessageValidationPipe(message.request)),
    UseFilters(new RpcErrorFilter()),
  );

/** The validated message a handler receives; handlers import it from here, never from the broker's library. */
export { Payload, Ctx } from '@nestjs/microservices';
