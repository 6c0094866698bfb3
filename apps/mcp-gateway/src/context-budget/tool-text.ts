/**
 * The text content of an MCP tool result, sized for a model's context (docs/agents.md, "What the text content holds").
 *
 * structuredContent carries the result's JSON, whole and as the outputSchema describes it. The text block carries the
 * same data in a compact rendering, because clients put the text in front of the model and some refuse a result
 * above 25,000 tokens: every list of objects becomes `{"columns":[...],"rows":[[...],...]}`, so a field name is
 * written once per list instead of once per row (a 100-ad page: 66 KB of JSON, about half as a table). Nothing is
 * dropped while the rendering fits TEXT_BUDGET; a result that would not fit (only lists of very wide rows) keeps
 * its first rows and says how many it shows, so the model is never handed a cut-off it cannot see.
 */
export const TEXT_BUDGET = 60_000;

/** One model token per this many characters, rounded up: the low end of what tokenizers give for JSON text. */
const CHARACTERS_PER_TOKEN = 3;

export interface TextSize {
  readonly characters: number;
  readonly estimated_tokens: number;
}

export const sizeOf = (text: string): TextSize => ({
  characters: text.length,
  estimated_tokens: Math.ceil(text.length / CHARACTERS_PER_TOKEN),
});

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Lists of objects as tables, recursively (a table's cells may hold tables of their own). */
export function tabulate(value: unknown): Json {
  if (Array.isArray(value)) {
    const items = value.map(tabulate);
    if (!items.length || !items.every(isObject)) return items;
    const columns: string[] = [];
    for (const item of items) for (const key of Object.keys(item)) if (!columns.includes(key)) columns.push(key);
    // A column a row lacks is null in that row; rows that all share the columns (the usual case) lose nothing.
    return { columns, rows: items.map((item) => columns.map((c) => (c in item ? (item[c] as Json) : null))) };
  }
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, tabulate(v)]));
  return value as Json;
}

/**
 * The text of a result: the tabulated JSON, or when it would exceed `budget`, the same with the top-level `data`
 * table cut to the rows that fit, and `text_shows_rows: "n of m"` beside it.
 */
export function renderToolText(result: unknown, budget = TEXT_BUDGET): string {
  const table = tabulate(result);
  const text = JSON.stringify(table);
  if (text.length <= budget || !isObject(table) || !isTable(table['data'])) return text;
  const data = table['data'];
  const total = data.rows.length;
  const fit = (n: number) => JSON.stringify({ ...table, data: { ...data, rows: data.rows.slice(0, n) }, text_shows_rows: `${n} of ${total}` });
  // The largest number of rows that fits: binary search over the row count (the text grows with it).
  let lo = 0;
  let hi = total;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fit(mid).length <= budget) lo = mid;
    else hi = mid - 1;
  }
  return fit(lo);
}

function isObject(value: unknown): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTable(value: unknown): value is { columns: string[]; rows: Json[][] } {
  return isObject(value) && Array.isArray(value['columns']) && Array.isArray(value['rows']);
}
