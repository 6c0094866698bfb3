import { z } from 'zod';
import type { MessageDefinition } from '@adintel/contracts';
import type { Surface } from './tool-definition';

/** A message whose request is an object: the only kind a tool can be answered by. */
export type ObjectMessage = MessageDefinition<z.ZodObject>;

/** Fields a surface replaces, e.g. a different default page size. */
export type ArgOverrides = Partial<Record<Surface, z.ZodRawShape>>;

/** The field the edge fills in from the access token for caller-scoped tools. */
const CALLER_FIELD = 'caller_id';

/**
 * A tool's arguments are its message's request, so the two cannot drift apart:
 * - caller-scoped tools drop `caller_id` (the edge adds it) and reject unknown fields like every tool;
 * - a surface override replaces whole fields while keeping the request's refinements (`safeExtend`);
 * - `extra` adds arguments the edge answers itself (`fields`: fields.ts), on every surface.
 */
export function argsFromMessage(
  message: ObjectMessage,
  options: { callerScoped: boolean; overrides?: ArgOverrides; extra?: z.ZodRawShape },
): (surface: Surface) => z.ZodObject {
  const request = options.callerScoped ? withoutCaller(message) : message.request;
  // Arguments the edge answers itself (`fields`), on every surface.
  const base = options.extra ? request.safeExtend(options.extra) : request;
  const bySurface = new Map<Surface, z.ZodObject>();
  for (const [surface, fields] of Object.entries(options.overrides ?? {}) as [Surface, z.ZodRawShape][]) {
    bySurface.set(surface, base.safeExtend(fields));
  }
  return (surface) => bySurface.get(surface) ?? base;
}

function withoutCaller(message: ObjectMessage): z.ZodObject {
  const request = message.request;
  if (!(CALLER_FIELD in request.shape)) {
    throw new Error(`${message.pattern}: a caller-scoped message must carry ${CALLER_FIELD}`);
  }
  // Rebuilding the object drops refinements; none of the caller-scoped requests has one, and this keeps it so.
  if ((request.def.checks ?? []).length > 0) {
    throw new Error(`${message.pattern}: a caller-scoped request cannot carry refinements`);
  }
  const { [CALLER_FIELD]: _caller, ...shape } = request.shape;
  return z.strictObject(shape);
}
