import type { estypes } from '@elastic/elasticsearch';
import { FEED_KEYS } from '../change-feed';
import { ENTITY_KINDS, type IndexNames } from '../index-names';

/**
 * The requests of an offline load's generations (ADR 0012): what the store holds, the copy of the served ads into a
 * new generation (an ingest adds to the store), and the switch of every alias to it. Pure: the writer sends them.
 */

/** Every alias a served generation answers behind. */
export const servedAliases = (names: IndexNames): string[] => [names.ads, ...ENTITY_KINDS.map((kind) => names.entity(kind)), names.feed];

/** The indices of every generation (and of the layout before generations), served or not, to find what a stopped load left. */
export function storeIndicesRequest(names: IndexNames): estypes.IndicesGetRequest {
  return {
    index: [`${names.prefix}-ads-*`, ...ENTITY_KINDS.map((kind) => names.entityPattern(kind)), `${names.prefix}-feed*`],
    ignore_unavailable: true,
    allow_no_indices: true,
    expand_wildcards: ['open', 'closed'],
    // Only the names and aliases are read.
    features: ['aliases'],
  };
}

/** The ad index templates of every generation (`<prefix>-ads-<generation>`), to find those a stopped load left. */
export const generationTemplatesRequest = (names: IndexNames): estypes.IndicesGetIndexTemplateRequest => ({ name: `${names.prefix}-ads-*` });

/** What the store holds: each index with the aliases it is in (the answer of storeIndicesRequest). */
export type StoreIndices = Record<string, { aliases?: Record<string, unknown> }>;

/** The indices readers are served from: those in one of the served aliases (and the older layout's concrete feed index). */
export function servedIndices(names: IndexNames, indices: StoreIndices): string[] {
  const aliases = new Set(servedAliases(names));
  return Object.entries(indices)
    .filter(([index, info]) => index === names.feed || Object.keys(info.aliases ?? {}).some((alias) => aliases.has(alias)))
    .map(([index]) => index);
}

/** The generations that are not served (a load stopped before its switch, or an old one not deleted after it), with their indices. */
export function unservedGenerations(names: IndexNames, indices: StoreIndices, templates: readonly string[]): Map<string, { indices: string[]; templates: string[] }> {
  const served = new Set(servedIndices(names, indices));
  const servedGenerations = new Set([...served].map((index) => names.generationOf(index)));
  const out = new Map<string, { indices: string[]; templates: string[] }>();
  const entry = (generation: string) => out.get(generation) ?? out.set(generation, { indices: [], templates: [] }).get(generation) ?? { indices: [], templates: [] };
  for (const index of Object.keys(indices).sort()) {
    const generation = names.generationOf(index);
    if (generation !== undefined && !served.has(index)) entry(generation).indices.push(index);
  }
  for (const template of [...templates].sort()) {
    const generation = /^\d+$/.exec(template.slice(`${names.prefix}-ads-`.length))?.[0];
    if (generation !== undefined && template.startsWith(`${names.prefix}-ads-`) && !servedGenerations.has(generation)) entry(generation).templates.push(template);
  }
  return out;
}

/**
 * Copies one served monthly ad index into the same month of the new generation, without the change-feed fields (the
 * new generation is a new store: its feed starts empty). Run as a task (`wait_for_completion: false`): a month may take
 * longer than a request may. `op_type: create` keeps the copy from ever overwriting an ad the load wrote already.
 */
export function copyMonthRequest(source: string, target: string): estypes.ReindexRequest {
  return {
    source: { index: source, _source: { excludes: [...FEED_KEYS] } },
    dest: { index: target, op_type: 'create' },
    conflicts: 'proceed',
    wait_for_completion: false,
  };
}

/** The month (`YYYY.MM`) of a monthly ad index of any generation, or of the layout before generations. */
export const monthOf = (index: string): string | undefined => /-(\d{4}\.\d{2})$/.exec(index)?.[1];

/**
 * The switch, in one `_aliases` request (applied in one cluster state update: a reader sees the old generation or the
 * new one, never a mix): every alias moves from the indices serving it to the new generation's. The layout before
 * generations held the feed position in a concrete index named like the alias: `remove_index` deletes it in the same
 * request (Elasticsearch runs every remove_index first), so the alias can take its name.
 */
export function switchRequest(names: IndexNames, newAds: readonly string[], served: StoreIndices): estypes.IndicesUpdateAliasesRequest {
  const actions: estypes.IndicesUpdateAliasesAction[] = [];
  for (const [index, info] of Object.entries(served)) {
    if (index === names.feed) actions.push({ remove_index: { index } });
    else for (const alias of Object.keys(info.aliases ?? {})) if (servedAliases(names).includes(alias)) actions.push({ remove: { index, alias } });
  }
  for (const index of newAds) actions.push({ add: { index, alias: names.ads } });
  for (const kind of ENTITY_KINDS) actions.push({ add: { index: names.entityGeneration(kind, names.generation), alias: names.entity(kind) } });
  actions.push({ add: { index: names.feedIndex, alias: names.feed } });
  return { actions };
}
