import { z } from 'zod';
import { fieldErrorsFrom, type FieldError } from '@adintel/contracts';
import type { Surface, ToolDefinition } from './tool-definition';

export type ParsedArgs = { ok: true; args: Record<string, unknown> } | { ok: false; errors: FieldError[] };

/** Validates arguments as they arrive on a surface and applies that surface's defaults. */
export function parseToolArgs(tool: ToolDefinition, surface: Surface, raw: unknown): ParsedArgs {
  const schema = tool.args(surface);
  const result = schema.safeParse(raw ?? {});
  if (result.success) return { ok: true, args: result.data as Record<string, unknown> };
  return { ok: false, errors: fieldErrorsFrom(result.error, Object.keys(schema.shape)) };
}

type QueryValue = string | string[] | undefined;

/**
 * Turns an HTTP request (path parameters + query string) into the tool's typed arguments:
 * arrays accept repeated and comma-separated values, numbers are parsed, path parameters are decoded.
 * What cannot be coerced is passed through unchanged so validation names the field.
 */
export function parseHttpArgs(
  tool: ToolDefinition,
  pathParams: Record<string, string>,
  query: Record<string, QueryValue>,
): ParsedArgs {
  const shape = tool.args('http').shape;
  // A caller names the keys: `toString` or `__proto__` must be looked up and stored as plain data,
  // never resolved through Object.prototype (that made every REST path answer 500).
  const raw: Record<string, unknown> = Object.create(null);
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    raw[key] = coerce(Object.hasOwn(shape, key) ? shape[key] : undefined, value);
  }
  for (const [key, value] of Object.entries(pathParams)) raw[key] = value;
  return parseToolArgs(tool, 'http', raw);
}

function coerce(schema: z.ZodType | undefined, value: string | string[]): unknown {
  const kind = schema ? baseKind(schema) : 'unknown';
  const values = Array.isArray(value) ? value : [value];
  if (kind === 'array') return values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
  if (values.length > 1) return values; // a scalar given twice: validation reports it
  const [single] = values;
  if (single === undefined) return undefined; // an empty list: as absent
  if (kind === 'number' && /^-?\d+(\.\d+)?$/.test(single.trim())) return Number(single);
  if (kind === 'boolean' && (single === 'true' || single === 'false')) return single === 'true';
  return single;
}

function baseKind(schema: z.ZodType): string {
  let current = schema as z.ZodType & { def: { type: string; innerType?: z.ZodType } };
  while (current.def.innerType && ['optional', 'default', 'nullable', 'prefault'].includes(current.def.type)) {
    current = current.def.innerType as typeof current;
  }
  return current.def.type;
}

export type JsonSchema = Record<string, unknown>;

/** The input schema a client sees: what it may send, with this surface's defaults. */
export function inputJsonSchema(tool: ToolDefinition, surface: Surface): JsonSchema {
  return toJsonSchema(tool.args(surface), 'input');
}

export function outputJsonSchema(tool: ToolDefinition): JsonSchema {
  return toJsonSchema(tool.output, 'output');
}

function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return json;
}
