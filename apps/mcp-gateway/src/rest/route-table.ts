import type { z } from 'zod';
import type { ToolDefinition } from '@adintel/tool-catalogue';

export interface RouteMatch {
  readonly tool: ToolDefinition;
  readonly pathParams: Record<string, string>;
}

type Segment = { literal: string } | { param: string; mayHoldSlash: boolean };

interface Route {
  readonly tool: ToolDefinition;
  readonly segments: readonly Segment[];
}

/**
 * The REST twins of the tools, compiled from each tool's `http.path` template.
 * Literal segments win over parameters (`/ads/count` before `/ads/{id}`), whatever the catalogue order.
 * A parameter whose allowed values contain a slash (trends `advertisers/cards`) matches that value
 * written literally or %2F-encoded.
 */
export class RouteTable {
  private readonly routes: Route[];

  constructor(tools: readonly ToolDefinition[]) {
    this.routes = tools.map((tool) => ({ tool, segments: compile(tool) }));
  }

  /** `path` is relative to REST_PREFIX and still percent-encoded, e.g. `/analytics/trends/advertisers%2Fcards`. */
  match(path: string): RouteMatch | undefined {
    const raw = path.split('/').filter((s) => s !== '');
    let segments: string[];
    try {
      segments = raw.map((s) => decodeURIComponent(s));
    } catch {
      return undefined; // malformed percent-encoding names no resource
    }
    let best: { match: RouteMatch; score: number[] } | undefined;
    for (const route of this.routes) {
      const attempt = matchRoute(route, segments);
      if (attempt && (!best || compareScores(attempt.score, best.score) > 0)) best = attempt;
    }
    return best?.match;
  }
}

function compile(tool: ToolDefinition): Segment[] {
  const shape = tool.args('http').shape as Record<string, z.ZodType>;
  return tool.http.path
    .split('/')
    .filter((s) => s !== '')
    .map((part) => {
      const param = /^\{(\w+)\}$/.exec(part)?.[1];
      if (!param) return { literal: part };
      return { param, mayHoldSlash: enumValues(shape[param]).some((value) => value.includes('/')) };
    });
}

function enumValues(schema: z.ZodType | undefined): string[] {
  const options = (schema as { options?: unknown } | undefined)?.options;
  return Array.isArray(options) ? options.map(String) : [];
}

/** Score: one entry per template segment, 2 for a literal, 1 for a parameter; compared left to right. */
function matchRoute(route: Route, segments: string[]): { match: RouteMatch; score: number[] } | undefined {
  const pathParams: Record<string, string> = {};
  const score: number[] = [];
  let i = 0;
  for (const [index, segment] of route.segments.entries()) {
    if (i >= segments.length) return undefined;
    if ('literal' in segment) {
      if (segments[i] !== segment.literal) return undefined;
      score.push(2);
      i += 1;
      continue;
    }
    const isLast = index === route.segments.length - 1;
    // A slash-holding parameter in last position takes the rest of the path.
    const taken = segment.mayHoldSlash && isLast ? segments.slice(i) : [segments[i]];
    pathParams[segment.param] = taken.join('/');
    score.push(1);
    i += taken.length;
  }
  if (i !== segments.length) return undefined;
  return { match: { tool: route.tool, pathParams }, score };
}

function compareScores(a: number[], b: number[]): number {
  for (const [i, score] of a.entries()) {
    const other = b[i];
    if (other === undefined) break;
    if (score !== other) return score - other;
  }
  return a.length - b.length;
}
