import { REST_PREFIX, type CostRule, type ToolDefinition } from './tool-definition';
import { findTool } from './tools';

/**
 * A paid operation that is not one of the catalogue's tools (the contract fixes their count at 20): it is not in
 * MCP tools/list, has no generated REST twin and is not in get_catalog's tool list, but metering holds tokens for it
 * and the ledger records it under its name, like a tool's.
 */
export interface PricedOperation {
  readonly name: string;
  readonly title: string;
  readonly cost: CostRule;
  /** Where it is served, for the docs: a path under REST_PREFIX (its handler is written by hand). */
  readonly httpPath: string;
  /** When the cost is charged, for the docs, where it is not once per call. */
  readonly chargedWhen?: string;
}

/**
 * A creative's full media file (REST `GET /api/v1/creo/{id}/media/{n}` or MCP `resources/read` of that URL); its
 * thumbnail is free (it rides with the record: product-decisions.md, "Media").
 */
export const MEDIA_FILE: PricedOperation = {
  name: 'media_file',
  title: "A creative's media file (thumbnail free)",
  cost: { kind: 'flat', tokens: 10 },
  httpPath: '/creo/{id}/media/{n}',
  // The gateway's day pass (apps/mcp-gateway/src/media): a video player's many ranges are one charge.
  chargedWhen: 'once per caller, file and UTC day: later reads and ranges of it that day are free',
};

/** The free thumbnail of a media file: MEDIA_FILE's path and `/thumbnail`. */
export const MEDIA_THUMBNAIL_PATH = `${MEDIA_FILE.httpPath}/thumbnail`;

/**
 * The one builder of media paths (`/api/v1/creo/{id}/media/{n}[/thumbnail]`, the id percent-encoded): query-api
 * writes the records' `url` and `thumbnail_url` with it, the gateway the views' thumbnail URIs and its resource URIs.
 */
export function mediaPath(creativeId: string, index: number, variant: 'file' | 'thumbnail'): string {
  const template = variant === 'file' ? MEDIA_FILE.httpPath : MEDIA_THUMBNAIL_PATH;
  return `${REST_PREFIX}${template.replace('{id}', encodeURIComponent(creativeId)).replace('{n}', String(index))}`;
}

export const PRICED_OPERATIONS: readonly PricedOperation[] = [MEDIA_FILE];

/** What tokens may be held for: a catalogue tool or a priced operation, by the name the ledger records. */
export type Priced = Pick<ToolDefinition, 'name' | 'cost'>;

const operationsByName = new Map(PRICED_OPERATIONS.map((operation) => [operation.name, operation]));

export function findPriced(name: string): Priced | undefined {
  return findTool(name) ?? operationsByName.get(name);
}

/** The route of a priced operation as the docs write it, e.g. `GET /api/v1/creo/{id}/media/{n}`. */
export const pricedRoute = (operation: PricedOperation) => `GET ${REST_PREFIX}${operation.httpPath}`;
