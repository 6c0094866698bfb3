import { Controller, type INestMicroservice } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { defineMessage, ServiceError, type ServiceName } from '@adintel/contracts';
import { currentRequestId } from '@adintel/observability';
import { z } from 'zod';
import { currentTraceparent, HandleEvent, HandleMessage, Payload, RpcErrorFilter, StreamsServer, type StreamsServerOptions } from '../src';

/** Messages of a test service: each call is counted per replica, so tests can prove "handled exactly once". */
export const Echo = defineMessage('test.echo', z.object({ text: z.string().min(1) }), z.object({ text: z.string(), request_id: z.string().nullable(), traceparent: z.string().nullable(), replica: z.string() }));
export const Fail = defineMessage('test.fail', z.object({ how: z.enum(['not_found', 'crash']) }), z.object({}));
export const Slow = defineMessage('test.slow', z.object({ ms: z.int(), tag: z.string().optional() }), z.object({ replica: z.string() }));
export const Lying = defineMessage('test.lying', z.object({}), z.object({ count: z.int() }));
/** Its handler answers with a value JSON cannot carry (a bigint). */
export const Unserializable = defineMessage('test.unserializable', z.object({}), z.object({ count: z.int() }));
export const Noted = defineMessage('test.noted', z.object({ id: z.string() }), z.object({}));
/** An event whose handler always fails unexpectedly (a bug, or a store that never comes back). */
export const Poison = defineMessage('test.poison', z.object({ id: z.string() }), z.object({}));
/** An event whose handler fails unexpectedly on the replicas named in `failingReplicas` (a test fixes them). */
export const Flaky = defineMessage('test.flaky', z.object({ id: z.string() }), z.object({}));
export const failingReplicas = new Set<string>();
export const Unserved = defineMessage('test.unserved', z.object({}), z.object({}));

export interface Replica {
  readonly name: string;
  readonly server: StreamsServer;
  readonly app: INestMicroservice;
  /** pattern -> ids or texts this replica handled */
  readonly handled: Map<string, string[]>;
  close(): Promise<void>;
}

/** One replica of a test service as a real Nest microservice on the Streams transport. */
export async function startReplica(
  name: string,
  options: Omit<StreamsServerOptions, 'service'> & { service?: ServiceName },
): Promise<Replica> {
  const handled = new Map<string, string[]>();
  const note = (pattern: string, value: string) => handled.set(pattern, [...(handled.get(pattern) ?? []), value]);

  @Controller()
  class TestHandlers {
    @HandleMessage(Echo)
    echo(@Payload() data: { text: string }) {
      note(Echo.pattern, data.text);
      return { text: data.text, request_id: currentRequestId() ?? null, traceparent: currentTraceparent() ?? null, replica: name };
    }

    @HandleMessage(Fail)
    fail(@Payload() data: { how: string }) {
      if (data.how === 'not_found') throw ServiceError.notFound('ad', '42');
      throw new TypeError('secret internals');
    }

    @HandleMessage(Slow)
    async slow(@Payload() data: { ms: number; tag?: string }) {
      note(Slow.pattern, data.tag ?? '');
      await new Promise((resolve) => setTimeout(resolve, data.ms));
      return { replica: name };
    }

    @HandleMessage(Lying)
    lying() {
      return { count: 'many' };
    }

    @HandleMessage(Unserializable)
    unserializable() {
      return { count: 10n };
    }

    @HandleEvent(Noted)
    noted(@Payload() data: { id: string }) {
      note(Noted.pattern, data.id);
    }

    @HandleEvent(Flaky)
    flaky(@Payload() data: { id: string }) {
      note(Flaky.pattern, data.id);
      if (failingReplicas.has(name)) throw new TypeError('this replica cannot handle it yet');
    }

    @HandleEvent(Poison)
    poison(@Payload() data: { id: string }) {
      note(Poison.pattern, data.id);
      throw new TypeError('this handler always fails');
    }
  }

  const module = await Test.createTestingModule({ controllers: [TestHandlers] }).compile();
  const server = new StreamsServer({ service: 'query', ...options });
  const app = module.createNestMicroservice({ strategy: server, logger: process.env['DBG'] ? undefined : false });
  app.useGlobalFilters(new RpcErrorFilter());
  await app.listen();
  return { name, server, app, handled, close: () => app.close() };
}
