/**
 * The stand-in cluster's memory (es-server.ts, `startStandInCluster({ memory: true })`): a DOUBLE for a real
 * Elasticsearch cluster, which cannot run on the build machines (no package, no Docker daemon). It keeps the documents
 * the engine writes and answers its reads by evaluating the small part of the query DSL the engine sends (bool, term,
 * terms, ids, range including range fields, prefix, match_all; field sorts with search_after; `_source` lists;
 * track_total_hits; versioned and conditional writes; aliases, the atomic `_aliases` request and index templates; a
 * reindex, done at once and reported as a finished task), so the engine's logic can be run
 * end to end here. It is our reading of Elasticsearch's documented behaviour, not Elasticsearch: what it proves is that
 * the engine is right IF the cluster behaves as documented; the recordings of a real cluster (docs/operations.md)
 * are what check that reading. Aggregations other than min/max are answered in shape only (es-answers.ts); composite
 * walks answer no buckets, so entity records stay empty here.
 */
import { aggregationsOf } from './es-answers';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

interface StoredDoc {
  source: Json;
  version: number;
  seqNo: number;
}

export interface Answer {
  status: number;
  body?: Json;
}

const SHARDS = { total: 1, successful: 1, skipped: 0, failed: 0 };
const WRITE_SHARDS = { total: 1, successful: 1, failed: 0 };
/** Fields the engine maps as dates: they sort as epoch milliseconds. */
const DATE_FIELDS = new Set(['first_seen_date', 'last_seen_date']);
/** Range fields: a `term` matches a range holding the value; a `range` with `relation` compares ranges. */
const RANGE_FIELDS = new Set(['active_period', 'feed_since']);
/** The index analyser's words (mappings.ts `words`), of the fields copied to search_text. */
const wordsOf = (text: unknown) => (typeof text === 'string' ? text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean) : []);

const error = (status: number, type: string, reason: string): Answer => ({ status, body: { error: { type, reason, root_cause: [{ type, reason }] }, status } });

export class MemoryCluster {
  private readonly indices = new Map<string, Map<string, StoredDoc>>();
  private readonly aliases = new Map<string, Set<string>>();
  private readonly templates = new Map<string, { patterns: RegExp[]; aliases: string[]; body: Json }>();
  /** Finished tasks (a reindex runs to its end before its answer), by id. */
  private readonly tasks = new Map<string, Json>();
  private seqNo = 0;
  private readonly pits = new Map<string, string>();

  answer(endpoint: string, method: string, path: string, query: Record<string, string>, body: unknown): Answer | undefined {
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    const target = parts[0] ?? '';
    switch (endpoint) {
      case 'indices.put_index_template': {
        const b = body as Json;
        const template = (b['template'] ?? {}) as Json;
        this.templates.set(parts[1] ?? '', {
          patterns: ((b['index_patterns'] as string[] | undefined) ?? []).map(pattern),
          aliases: Object.keys((template['aliases'] as Json | undefined) ?? {}),
          body: b,
        });
        return { status: 200, body: { acknowledged: true } };
      }
      case 'indices.get_index_template': {
        const name = parts[1] ?? '*';
        const found = [...this.templates].filter(([key]) => pattern(name).test(key));
        if (!found.length && !name.includes('*')) return error(404, 'resource_not_found_exception', `index template matching [${name}] not found`);
        return { status: 200, body: { index_templates: found.map(([key, t]) => ({ name: key, index_template: { composed_of: [], ...t.body } })) } };
      }
      case 'reindex':
        return this.reindex((body ?? {}) as Json);
      case 'tasks.get': {
        const task = this.tasks.get(parts[1] ?? '');
        return task ? { status: 200, body: task } : error(404, 'resource_not_found_exception', `task [${parts[1] ?? ''}] isn't running and hasn't stored its results`);
      }
      case 'indices.delete_index_template':
        this.templates.delete(parts[1] ?? '');
        return { status: 200, body: { acknowledged: true } };
      case 'indices.create':
        if (this.indices.has(target)) return error(400, 'resource_already_exists_exception', `index [${target}] already exists`);
        this.create(target, Object.keys(((body as Json | undefined)?.['aliases'] as Json | undefined) ?? {}));
        return { status: 200, body: { acknowledged: true, shards_acknowledged: true, index: target } };
      case 'indices.delete':
        for (const name of target.split(',')) {
          this.indices.delete(name);
          for (const members of this.aliases.values()) members.delete(name);
        }
        return { status: 200, body: { acknowledged: true } };
      case 'indices.get': {
        const names = this.resolve(target, true);
        return { status: 200, body: Object.fromEntries(names.map((name) => [name, { aliases: this.aliasesOf(name) }])) };
      }
      case 'indices.get_alias': {
        const alias = parts.at(-1) ?? '';
        const members = [...(this.aliases.get(alias) ?? [])];
        if (!members.length) return { status: 404, body: { error: `alias [${alias}] missing`, status: 404 } };
        return { status: 200, body: Object.fromEntries(members.map((name) => [name, { aliases: { [alias]: {} } }])) };
      }
      case 'indices.update_aliases': {
        // One cluster state update: every action is checked before any applies, and every remove_index runs first.
        const actions = (((body as Json)['actions'] as Json[]) ?? []).map((action) => Object.entries(action)[0] as [string, Json]);
        const removed = new Set(actions.filter(([kind]) => kind === 'remove_index').map(([, spec]) => String(spec['index'])));
        for (const [kind, spec] of actions) {
          const index = String(spec['index']);
          if (!this.indices.has(index)) return error(404, 'index_not_found_exception', `no such index [${index}]`);
          if (kind === 'add' && (removed.has(index) || (this.indices.has(String(spec['alias'])) && !removed.has(String(spec['alias']))))) {
            return error(400, 'invalid_alias_name_exception', `Invalid alias name [${String(spec['alias'])}]: an index or data stream exists with the same name as the alias`);
          }
          if (kind === 'remove' && !this.aliases.get(String(spec['alias']))?.has(index)) return error(404, 'aliases_not_found_exception', `aliases [${String(spec['alias'])}] missing`);
        }
        for (const index of removed) this.answer('indices.delete', 'DELETE', `/${index}`, {}, undefined);
        for (const [kind, spec] of actions) {
          const index = String(spec['index']);
          if (kind === 'add') this.aliasSet(String(spec['alias'])).add(index);
          else if (kind === 'remove') this.aliases.get(String(spec['alias']))?.delete(index);
        }
        return { status: 200, body: { acknowledged: true } };
      }
      case 'indices.put_mapping':
        return { status: 200, body: { acknowledged: true } };
      case 'indices.refresh':
        return { status: 200, body: { _shards: { total: 1, successful: 1, failed: 0 } } };
      case 'get':
        return this.get(target, parts[2] ?? '');
      case 'index':
      case 'create':
        return this.indexOne(target, parts[2] ?? '', body as Json, { ...query, ...(endpoint === 'create' || parts[1] === '_create' ? { op_type: 'create' } : {}) });
      case 'bulk':
        return { status: 200, body: this.bulk(Array.isArray(body) ? body : [], target.startsWith('_') ? undefined : target) };
      case 'search': {
        const b = (body ?? {}) as Json;
        // On a point in time, the indices it was opened on (this double does not freeze them: it reads them now).
        const pit = b['pit'] as Json | undefined;
        return this.search(pit ? (this.pits.get(String(pit['id'])) ?? '') : target, b);
      }
      case 'open_point_in_time': {
        const id = `pit-${this.pits.size + 1}`;
        this.pits.set(id, target);
        return { status: 200, body: { id, _shards: SHARDS } };
      }
      case 'close_point_in_time':
        return { status: 200, body: { succeeded: this.pits.delete(String((body as Json | undefined)?.['id'])), num_freed: 1 } };
      case 'count': {
        const docs = this.docsOf(target);
        const q = ((body ?? {}) as Json)['query'];
        return { status: 200, body: { count: docs.filter((d) => matches(d.doc.source, q)).length, _shards: SHARDS } };
      }
      default:
        return undefined;
    }
  }

  /** A new index, with the aliases of the one template that applies (the matching template of highest priority). */
  private create(name: string, extraAliases: string[] = []): Map<string, StoredDoc> {
    const docs = new Map<string, StoredDoc>();
    this.indices.set(name, docs);
    const matching = [...this.templates.values()].filter((t) => t.patterns.some((p) => p.test(name)));
    const template = matching.sort((a, b) => Number(b.body['priority'] ?? 0) - Number(a.body['priority'] ?? 0))[0];
    for (const alias of template?.aliases ?? []) this.aliasSet(alias).add(name);
    for (const alias of extraAliases) this.aliasSet(alias).add(name);
    return docs;
  }

  /**
   * Copies the documents of `source.index` (without the `_source.excludes` fields) into `dest.index`, created as a
   * write would create it; `op_type: create` keeps a document already there. Answers a task id (the engine sends
   * wait_for_completion=false), whose stored result tasks.get answers.
   */
  private reindex(body: Json): Answer {
    const source = (body['source'] ?? {}) as Json;
    const dest = (body['dest'] ?? {}) as Json;
    const excludes = (((source['_source'] as Json | undefined)?.['excludes'] as string[] | undefined) ?? []);
    const target = this.writeTarget(String(dest['index']));
    if ('status' in target) return target;
    const started = Date.now();
    let created = 0;
    for (const { id, doc } of this.docsOf(String(source['index']))) {
      if (dest['op_type'] === 'create' && target.docs.has(id)) continue;
      const copy = structuredClone(doc.source);
      for (const field of excludes) delete copy[field];
      target.docs.set(id, { source: copy, version: 1, seqNo: this.seqNo++ });
      created++;
    }
    const id = `memory:${this.tasks.size + 1}`;
    this.tasks.set(id, {
      completed: true,
      task: { node: 'memory', id: this.tasks.size + 1, type: 'transport', action: 'indices:data/write/reindex', start_time_in_millis: started, running_time_in_nanos: 0, cancellable: true, headers: {} },
      response: { took: 0, timed_out: false, total: created, created, updated: 0, deleted: 0, batches: 1, version_conflicts: 0, noops: 0, retries: { bulk: 0, search: 0 }, throttled_millis: 0, requests_per_second: -1, throttled_until_millis: 0, failures: [] },
    });
    return { status: 200, body: { task: id } };
  }

  private aliasSet(alias: string): Set<string> {
    const set = this.aliases.get(alias) ?? new Set<string>();
    this.aliases.set(alias, set);
    return set;
  }

  private aliasesOf(index: string): Json {
    return Object.fromEntries([...this.aliases].filter(([, members]) => members.has(index)).map(([alias]) => [alias, {}]));
  }

  /** Index names of an expression (comma list of names, aliases and patterns); missing names are left out. */
  private resolve(expression: string, tolerant = true): string[] {
    const out = new Set<string>();
    for (const part of expression.split(',')) {
      if (part.includes('*')) {
        for (const name of this.indices.keys()) if (pattern(part).test(name)) out.add(name);
      }
      else if (this.aliases.get(part)?.size) for (const name of this.aliases.get(part) ?? []) out.add(name);
      else if (this.indices.has(part) || !tolerant) out.add(part);
    }
    return [...out];
  }

  /** The index a write to `name` goes to: the one index of an alias, or the index itself (created on first write). */
  private writeTarget(name: string, requireAlias = false): { index: string; docs: Map<string, StoredDoc> } | Answer {
    const members = [...(this.aliases.get(name) ?? [])];
    if (members.length > 1) return error(400, 'illegal_argument_exception', `no write index is defined for alias [${name}]`);
    const index = members[0] ?? name;
    if (requireAlias && !members.length) return error(404, 'index_not_found_exception', `no such index [${name}] and [require_alias] request flag is [true]`);
    return { index, docs: this.indices.get(index) ?? this.create(index) };
  }

  private docsOf(expression: string): { index: string; id: string; doc: StoredDoc }[] {
    return this.resolve(expression).flatMap((index) => [...(this.indices.get(index) ?? [])].map(([id, doc]) => ({ index, id, doc })));
  }

  private get(name: string, id: string): Answer {
    const index = [...(this.aliases.get(name) ?? [])][0] ?? name;
    const docs = this.indices.get(index);
    if (!docs) return error(404, 'index_not_found_exception', `no such index [${name}]`);
    const doc = docs.get(id);
    if (!doc) return { status: 404, body: { _index: index, _id: id, found: false } };
    return { status: 200, body: { _index: index, _id: id, _version: doc.version, _seq_no: doc.seqNo, _primary_term: 1, found: true, _source: doc.source } };
  }

  /** One write (index/create) with Elasticsearch's conditions: op_type create, if_seq_no/if_primary_term, external_gte. */
  private write(target: { index: string; docs: Map<string, StoredDoc> }, id: string, source: Json, options: Json): { status: number; item: Json } {
    const held = target.docs.get(id);
    const conflict = (reason: string) => ({
      status: 409,
      item: { _index: target.index, _id: id, status: 409, error: { type: 'version_conflict_engine_exception', reason: `[${id}]: version conflict, ${reason}` } },
    });
    if (options['op_type'] === 'create' && held) return conflict('document already exists');
    if (options['if_seq_no'] !== undefined) {
      if (!held || held.seqNo !== Number(options['if_seq_no']) || Number(options['if_primary_term']) !== 1) {
        return conflict(`required seqNo [${String(options['if_seq_no'])}], current ${held ? held.seqNo : 'none'}`);
      }
    }
    let version = (held?.version ?? 0) + 1;
    if (options['version_type'] === 'external_gte') {
      version = Number(options['version']);
      if (held && version < held.version) return conflict(`current version [${held.version}] is higher than the one provided [${version}]`);
    }
    const doc = { source: structuredClone(source), version, seqNo: this.seqNo++ };
    target.docs.set(id, doc);
    return {
      status: held ? 200 : 201,
      item: { _index: target.index, _id: id, _version: version, result: held ? 'updated' : 'created', _shards: WRITE_SHARDS, _seq_no: doc.seqNo, _primary_term: 1, status: held ? 200 : 201 },
    };
  }

  private indexOne(name: string, id: string, source: Json, query: Record<string, string>): Answer {
    const target = this.writeTarget(name);
    if ('status' in target) return target;
    const { status, item } = this.write(target, id, source, query);
    if (status === 409) return error(409, 'version_conflict_engine_exception', String((item['error'] as Json)['reason']));
    const { status: _status, ...body } = item;
    return { status, body };
  }

  private bulk(lines: unknown[], defaultIndex?: string): Json {
    const items: Json[] = [];
    for (let i = 0; i < lines.length; i++) {
      const [operation, meta] = Object.entries(lines[i] as Json)[0] as [string, Json];
      const name = String(meta['_index'] ?? defaultIndex ?? '');
      const id = String(meta['_id'] ?? '');
      if (operation === 'delete') {
        items.push({ delete: this.remove(name, id, meta) });
        continue;
      }
      const source = lines[++i] as Json;
      const target = this.writeTarget(name, meta['require_alias'] === true);
      if ('status' in target) {
        const err = (target.body?.['error'] ?? {}) as Json;
        items.push({ [operation]: { _index: name, _id: id, status: target.status, error: { type: err['type'], reason: err['reason'] } } });
        continue;
      }
      items.push({ [operation]: this.write(target, id, source, operation === 'create' ? { ...meta, op_type: 'create' } : meta).item });
    }
    return { took: 1, errors: items.some((item) => Number((Object.values(item)[0] as Json)['status']) >= 300), items };
  }

  private remove(name: string, id: string, meta: Json): Json {
    const index = [...(this.aliases.get(name) ?? [])][0] ?? name;
    const docs = this.indices.get(index);
    const held = docs?.get(id);
    if (held && meta['version_type'] === 'external_gte' && Number(meta['version']) < held.version) {
      return { _index: index, _id: id, status: 409, error: { type: 'version_conflict_engine_exception', reason: `[${id}]: version conflict` } };
    }
    if (held) docs?.delete(id);
    return { _index: index, _id: id, _version: held?.version ?? 1, result: held ? 'deleted' : 'not_found', _shards: WRITE_SHARDS, _seq_no: this.seqNo++, _primary_term: 1, status: held ? 200 : 404 };
  }

  private search(expression: string, body: Json): Answer {
    const found = this.docsOf(expression).filter(({ doc }) => matches(doc.source, body['query']));
    const sort = sortSpec(body['sort']);
    const keyed = found.map((entry) => ({ ...entry, key: sort.map((s) => sortValue(entry.doc.source, s)) }));
    keyed.sort((a, b) => compareKeys(a.key, b.key, sort) || a.id.localeCompare(b.id));
    const after = body['search_after'] as unknown[] | undefined;
    const page = after ? keyed.filter((entry) => compareKeys(entry.key, after, sort) > 0) : keyed;
    const size = Number(body['size'] ?? 10);
    const tracked = body['track_total_hits'];
    const total =
      tracked === false
        ? undefined
        : typeof tracked === 'number' && found.length > tracked
          ? { value: tracked, relation: 'gte' }
          : { value: found.length, relation: 'eq' };
    const aggs = (body['aggs'] ?? body['aggregations']) as Json | undefined;
    return {
      status: 200,
      body: {
        took: 1,
        timed_out: false,
        _shards: SHARDS,
        hits: {
          ...(total ? { total } : {}),
          max_score: null,
          hits: page.slice(0, size).map((entry) => ({
            _index: entry.index,
            _id: entry.id,
            _score: null,
            _source: sourceOf(entry.doc.source, body['_source']),
            ...(body['seq_no_primary_term'] === true ? { _seq_no: entry.doc.seqNo, _primary_term: 1 } : {}),
            ...(sort.length ? { sort: entry.key.map((v) => v ?? null) } : {}),
          })),
        },
        ...(aggs ? { aggregations: this.aggregations(aggs, found.map((f) => f.doc.source)) } : {}),
      },
    };
  }

  /** min/max over the matching documents; composite walks answer no buckets; the rest in shape only (es-answers.ts). */
  private aggregations(aggs: Json, docs: Json[]): Json {
    return Object.fromEntries(
      Object.entries(aggs).map(([name, container]) => {
        const c = container as Json;
        for (const metric of ['min', 'max'] as const) {
          const definition = c[metric] as Json | undefined;
          if (!definition) continue;
          const values = docs.flatMap((d) => [d[String(definition['field'])]].flat()).filter((v): v is string => typeof v === 'string').sort();
          const value = metric === 'min' ? values[0] : values.at(-1);
          return [name, value === undefined ? { value: null } : { value: Date.parse(`${value}T00:00:00Z`), value_as_string: value }];
        }
        if (c['composite']) return [name, { buckets: [] }];
        return [name, aggregationsOf({ [name]: c })[name]];
      }),
    );
  }
}

const pattern = (glob: string) => new RegExp(`^${glob.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);

function valuesOf(doc: Json, field: string): unknown[] {
  if (field === 'search_text') return [...wordsOf(doc['title']), ...wordsOf(doc['body']), ...wordsOf(doc['landing_url'])];
  if (field === '_id') return [doc['id']];
  const value = doc[field];
  return value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
}

const same = (a: unknown, b: unknown) => String(a) === String(b);
function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' || typeof b === 'number') return Number(a) - Number(b);
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function inRange(value: unknown, bounds: Json): boolean {
  if (bounds['gt'] !== undefined && !(compare(value, bounds['gt']) > 0)) return false;
  if (bounds['gte'] !== undefined && !(compare(value, bounds['gte']) >= 0)) return false;
  if (bounds['lt'] !== undefined && !(compare(value, bounds['lt']) < 0)) return false;
  if (bounds['lte'] !== undefined && !(compare(value, bounds['lte']) <= 0)) return false;
  return true;
}

/** A stored range value ({gte, lte} or {gte, lt}) holds `value`. */
function holds(range: unknown, value: unknown): boolean {
  return isObject(range) && inRange(value, range);
}

/** Whether a document matches a query of the DSL subset the engine sends; anything else throws (the server reports it). */
export function matches(doc: Json, query: unknown): boolean {
  if (query === undefined) return true;
  if (!isObject(query)) throw new Error(`not a query: ${JSON.stringify(query)}`);
  const [kind, spec] = Object.entries(query)[0] as [string, Json];
  switch (kind) {
    case 'match_all':
      return true;
    case 'bool': {
      const list = (key: string) => [spec[key] ?? []].flat();
      if (!list('filter').every((q) => matches(doc, q)) || !list('must').every((q) => matches(doc, q))) return false;
      if (list('must_not').some((q) => matches(doc, q))) return false;
      const should = list('should');
      const atLeast = Number(spec['minimum_should_match'] ?? (list('filter').length || list('must').length ? 0 : 1));
      return !should.length || should.filter((q) => matches(doc, q)).length >= atLeast;
    }
    case 'term': {
      const [field, raw] = Object.entries(spec)[0] as [string, unknown];
      const value = isObject(raw) ? raw['value'] : raw;
      return valuesOf(doc, field).some((v) => (RANGE_FIELDS.has(field) ? holds(v, value) : same(v, value)));
    }
    case 'terms': {
      const [field, list] = Object.entries(spec)[0] as [string, unknown[]];
      return valuesOf(doc, field).some((v) => list.some((w) => same(v, w)));
    }
    case 'ids':
      return ((spec['values'] as unknown[]) ?? []).some((id) => same(id, doc['id']));
    case 'prefix': {
      const [field, raw] = Object.entries(spec)[0] as [string, unknown];
      const value = String(isObject(raw) ? raw['value'] : raw);
      return valuesOf(doc, field).some((v) => String(v).startsWith(value));
    }
    case 'range': {
      const [field, bounds] = Object.entries(spec)[0] as [string, Json];
      if (RANGE_FIELDS.has(field)) {
        // relation intersects: the stored range and the asked one overlap.
        return valuesOf(doc, field).some((r) => {
          const stored = r as Json;
          const from = bounds['gte'] ?? bounds['gt'];
          const to = bounds['lte'] ?? bounds['lt'];
          return (to === undefined || compare(stored['gte'], to) <= 0) && (from === undefined || compare(stored['lte'] ?? stored['lt'], from) >= 0);
        });
      }
      return valuesOf(doc, field).some((v) => inRange(v, bounds));
    }
    default:
      throw new Error(`the stand-in cluster does not evaluate ${kind} queries`);
  }
}

interface SortField {
  field: string;
  desc: boolean;
  missing: unknown;
}

function sortSpec(sort: unknown): SortField[] {
  return [sort ?? []].flat().map((entry) => {
    const [field, options] = isObject(entry) ? (Object.entries(entry)[0] as [string, unknown]) : [String(entry), {}];
    const o = isObject(options) ? options : { order: options };
    return { field, desc: o['order'] === 'desc', missing: o['missing'] ?? '_last' };
  });
}

/** The sort value of a field (dates as epoch ms; several values: the smallest ascending, the largest descending). */
function sortValue(doc: Json, sort: SortField): unknown {
  const values = valuesOf(doc, sort.field).map((v) => (DATE_FIELDS.has(sort.field) ? Date.parse(`${String(v)}T00:00:00Z`) : v));
  if (!values.length) return typeof sort.missing === 'number' ? sort.missing : undefined;
  return values.reduce((best, v) => (compare(v, best) * (sort.desc ? 1 : -1) > 0 ? v : best));
}

function compareKeys(a: unknown[], b: unknown[], sort: SortField[]): number {
  for (let i = 0; i < sort.length; i++) {
    const s = sort[i] as SortField;
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined) {
      if (x === y) continue;
      // _last whatever the order (the engine sends no _first).
      return x === undefined ? 1 : -1;
    }
    const c = compare(x, y);
    if (c) return s.desc ? -c : c;
  }
  return 0;
}

function sourceOf(source: Json, filter: unknown): Json | undefined {
  if (filter === false) return undefined;
  if (!Array.isArray(filter)) return source;
  return Object.fromEntries(Object.entries(source).filter(([key]) => filter.some((f) => f === key || String(f).startsWith(`${key}.`))));
}
