import type { z } from 'zod';
import type { MessageDefinition, ServiceName } from '@adintel/contracts';
import type { FieldSelection } from './fields';

export type Surface = 'http' | 'mcp';

/** Where the REST twins live on the public origin; every tool's `http.path` is relative to it. */
export const REST_PREFIX = '/api/v1';
/** The OpenAPI document and the reference page (whose anchors the problem `type` URIs point at). */
export const OPENAPI_PATH = `${REST_PREFIX}/openapi.json`;
export const REST_DOCS_PATH = `${REST_PREFIX}/docs`;

/**
 * A call that computes several sections at once (get_ads_breakdown's `field=overview`): each is a scan of its own, so
 * the call pays at least one row per section, whatever its `limit` (the service gives every section a row at least).
 */
export interface SectionsRule {
  /** The argument and value that ask for the sections. */
  readonly arg: string;
  readonly value: string;
  readonly count: number;
}

/** What a call costs. `per_row` charges for every row in `data` of the result (and in each of its `sections`). */
export type CostRule =
  | { readonly kind: 'free' }
  | { readonly kind: 'flat'; readonly tokens: number }
  | { readonly kind: 'per_row'; readonly tokens: number; readonly unit: string; readonly sections?: SectionsRule };

/**
 * How the gateway admits a tool's calls per account (apps/mcp-gateway/src/rate-limit): `paid` tools share the paid
 * bucket, free data tools a larger bucket of their own (a count over a million ads is real work), and `unlimited`
 * tools answer about the caller's own balance (product-decisions.md: get_usage is free at any frequency).
 */
export type Admission = 'paid' | 'free_data' | 'unlimited';

/** An interactive view (MCP Apps `ui://` resource) that shows a tool's result; hosts without the extension ignore it. */
export type ToolView = 'ad-gallery' | 'trend-chart' | 'advertiser-card';

export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  /** Written for an LLM: when to use it, what it costs, how it pages. */
  readonly description: string;
  /**
   * Strict argument schema, derived from `message.request` (see derive-args.ts); `surface` only changes
   * defaults (search_ads pages 20 on MCP, 50 on HTTP).
   */
  readonly args: (surface: Surface) => z.ZodObject;
  readonly output: z.ZodType;
  /** The GET twin under REST_PREFIX; `{name}` segments are path parameters. */
  readonly http: { readonly path: string; readonly pathParams: readonly string[] };
  readonly cost: CostRule;
  /** Which per-account bucket its calls take from. */
  readonly admission: Admission;
  /**
   * It scans the ads rather than looking rows up (query-api runs it on its scan worker): a caller may have only a
   * few in flight at once (the gateway's SCANS_IN_FLIGHT_PER_ACCOUNT).
   */
  readonly scan: boolean;
  /** The service message that answers it. */
  readonly service: ServiceName;
  readonly message: MessageDefinition;
  /** Metering tools answer about the caller: the edge adds `caller_id` to their message. */
  readonly callerScoped: boolean;
  /** List tools: the row fields `fields` may name (fields.ts); the edge projects the rows. */
  readonly selection?: FieldSelection;
  /** The view that shows this tool's structuredContent, if any. */
  readonly view?: ToolView;
}

/** A tool's REST twin as a method and absolute path, e.g. `GET /api/v1/ads/{id}`. */
export const restRoute = (tool: Pick<ToolDefinition, 'http'>) => `GET ${REST_PREFIX}${tool.http.path}`;
