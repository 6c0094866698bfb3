import { describeCost } from './costs';
import type { CostRule } from './tool-definition';

/**
 * What an agent needs to choose a tool, in parts the catalogue writes once per tool. The description MCP tools/list,
 * OpenAPI and the docs show is rendered from them, so every tool answers the same five questions in the same order.
 */
export interface ToolGuide {
  /** What it does, one sentence. */
  readonly does: string;
  /** When to use it. */
  readonly when: string;
  /** When not to, naming the tool to use instead (`name` of another tool). */
  readonly instead: string;
  /** What comes back. */
  readonly returns: string;
  /** Anything beside the price an agent must know to afford it (paging, what is free). */
  readonly costNote?: string;
}

/** The parts a rendered description always has, in order (a test checks every tool's text for each). */
export const DESCRIPTION_PARTS = ['When to use:', 'Not for:', 'Returns:', 'Cost:'] as const;

export function renderDescription(guide: ToolGuide, cost: CostRule): string {
  const price = cost.kind === 'free' ? 'free (0 tokens)' : describeCost(cost);
  return [
    guide.does,
    `When to use: ${guide.when}`,
    `Not for: ${guide.instead}`,
    `Returns: ${guide.returns}`,
    `Cost: ${price.charAt(0).toUpperCase()}${price.slice(1)}.${guide.costNote ? ` ${guide.costNote}` : ''}`,
  ].join('\n');
}
