import { z } from 'zod';

/**
 * `fields` on list tools: the caller names the row fields it wants (the key field always comes), so a page costs
 * the agent the context it needs and no more. The allowed names are the keys of the rows the tool's result lists
 * (`data` of its response), so REST, MCP, OpenAPI and get_catalog all read them from the one schema.
 * The services never see `fields`: the edge takes it off the arguments and projects the rows of the result.
 */
export const FIELDS_ARG = 'fields';

export interface FieldSelection {
  /** The field every row keeps (`id`, or `domain` for landing domains). */
  readonly key: string;
  /** Every field a row has, in the schema's order. */
  readonly fields: readonly string[];
}

type ListSchema = z.ZodObject<{ data: z.ZodArray<z.ZodObject> }>;

/** The row fields of a list response (`{ data: Row[] }`); throws on any other shape (a catalogue mistake). */
export function selectionOf(response: z.ZodType, key: string): FieldSelection {
  const data = (response as Partial<ListSchema>).shape?.data;
  const row = data?.element;
  if (!(row instanceof z.ZodObject) || !(key in row.shape)) throw new Error(`fields: the response rows have no ${key} field`);
  return { key, fields: Object.keys(row.shape) };
}

/** The `fields` argument: one or more row fields (comma-separated on REST), validated against the list. */
export const fieldsArg = (selection: FieldSelection) =>
  z
    .array(z.enum(selection.fields as [string, ...string[]]))
    .min(1)
    .optional()
    .describe(`row fields to return (${selection.key} always comes), e.g. ${selection.key},${selection.fields[1] ?? selection.key}; default all`);

/** The response as published when rows may be projected: every row field but the key becomes optional. */
export function selectableOutput(response: z.ZodType, selection: FieldSelection): z.ZodType {
  const list = response as ListSchema;
  const row = list.shape.data.element;
  const shape = Object.fromEntries(
    Object.entries(row.shape).map(([name, field]) => [name, name === selection.key ? field : (field as z.ZodType).optional()]),
  );
  return list.safeExtend({ data: z.array(z.object(shape)) });
}

/** Splits the arguments a surface validated into the service's arguments and the fields asked for (null: all). */
export function takeFields(args: Record<string, unknown>): { args: Record<string, unknown>; fields: readonly string[] | null } {
  if (!(FIELDS_ARG in args)) return { args, fields: null };
  const { [FIELDS_ARG]: fields, ...rest } = args;
  return { args: rest, fields: Array.isArray(fields) ? (fields as string[]) : null };
}

/** The result with each row of `data` cut to the key and the fields asked for, in the schema's order. */
export function projectRows(result: unknown, selection: FieldSelection, fields: readonly string[] | null): unknown {
  const data = (result as { data?: unknown } | null)?.data;
  if (!fields || !Array.isArray(data)) return result;
  const keep = selection.fields.filter((f) => f === selection.key || fields.includes(f));
  const rows = data.map((row: Record<string, unknown>) => Object.fromEntries(keep.filter((f) => f in row).map((f) => [f, row[f]])));
  return { ...(result as object), data: rows };
}
