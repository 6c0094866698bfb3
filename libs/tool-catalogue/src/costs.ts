import type { Admission, CostRule, SectionsRule, ToolDefinition } from './tool-definition';

export const FREE: CostRule = { kind: 'free' };
export const ONE_TOKEN: CostRule = { kind: 'flat', tokens: 1 };
export const perRow = (unit: string, sections?: SectionsRule): CostRule => ({ kind: 'per_row', tokens: 1, unit, ...(sections && { sections }) });

/** Tokens to hold before the call: the most the call could cost. */
export function worstCaseCost(tool: Pick<ToolDefinition, 'cost'>, args: { limit?: number } & Record<string, unknown>): number {
  return costOf(tool, rowsAtMost(tool.cost, args));
}

/**
 * The most rows a call may deliver: its `limit`, and for a call asking for sections at least one row per section
 * (each section is a scan: a `limit=1` overview must not buy eight scans for one token).
 */
export function rowsAtMost(cost: CostRule, args: { limit?: number } & Record<string, unknown>): number {
  const limit = args.limit ?? 0;
  if (cost.kind !== 'per_row' || !cost.sections || args[cost.sections.arg] !== cost.sections.value) return limit;
  return Math.max(limit, cost.sections.count);
}

/**
 * The bucket a tool's calls take from: priced tools the paid one; free tools of the data (query-api's) a larger one;
 * free tools about the caller's own account none.
 */
export function admissionOf(cost: CostRule, service: ToolDefinition['service']): Admission {
  if (cost.kind !== 'free') return 'paid';
  return service === 'query' ? 'free_data' : 'unlimited';
}

/** Tokens the finished call costs: pay for results, not for asking. */
export function actualCost(tool: Pick<ToolDefinition, 'cost'>, result: unknown): number {
  return costOf(tool, rowsOf(result));
}

function costOf(tool: Pick<ToolDefinition, 'cost'>, rows: number): number {
  switch (tool.cost.kind) {
    case 'free':
      return 0;
    case 'flat':
      return tool.cost.tokens;
    case 'per_row':
      return tool.cost.tokens * rows;
  }
}

/** The rows a result delivers: its `data`, and the `data` of each of its `sections` (get_ads_breakdown's overview). */
function rowsOf(result: unknown): number {
  const { data, sections } = (result ?? {}) as { data?: unknown; sections?: unknown };
  const own = Array.isArray(data) ? data.length : 0;
  return Array.isArray(sections) ? sections.reduce((n: number, section) => n + rowsOf(section), own) : own;
}

/** Worst case = limit x unit price, so the largest affordable limit is what remains / unit price. */
export function maxAffordableLimit(tool: Pick<ToolDefinition, 'cost'>, remaining: number): number {
  if (tool.cost.kind !== 'per_row') return 0;
  return Math.floor(remaining / tool.cost.tokens);
}

export function describeCost(cost: CostRule): string {
  switch (cost.kind) {
    case 'free':
      return 'free';
    case 'flat':
      return `${cost.tokens} token${cost.tokens === 1 ? '' : 's'} per call`;
    case 'per_row': {
      const each = `${cost.tokens} token per ${cost.unit} returned`;
      const { sections } = cost;
      return sections ? `${each}; ${sections.arg}=${sections.value} at least ${sections.count * cost.tokens}, one ${cost.unit} per section` : each;
    }
  }
}
