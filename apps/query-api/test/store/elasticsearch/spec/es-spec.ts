/**
 * A validator on the official Elasticsearch specification: `schema.json`, the compiled elasticsearch-specification
 * model (every endpoint, its URL templates, path, query and body types, every request and response type), as
 * `@elastic/request-converter` ships it (a devDependency pinned to the client's minor, 9.5). A test helper, not product
 * code: no Elasticsearch server can run on the build machines, so the engine's requests are checked against the
 * specification instead of a cluster (test/store/elasticsearch/README.md says what that proves and what it cannot).
 *
 * It interprets the metamodel: interfaces with inheritance and generics, containers (exactly one variant key),
 * `AdditionalProperty`/`AdditionalProperties` behaviours, shortcut properties, internally tagged and untagged unions,
 * dictionaries, arrays, enums, literals. Unknown keys, wrong value types, missing required properties and two variants
 * in one container are errors. Semantics the model cannot express live in es-rules.ts.
 */
import { readFileSync } from 'node:fs';

interface TypeName {
  namespace: string;
  name: string;
}
type ValueOf =
  | { kind: 'instance_of'; type: TypeName; generics?: ValueOf[] }
  | { kind: 'array_of'; value: ValueOf }
  | { kind: 'union_of'; items: ValueOf[] }
  | { kind: 'dictionary_of'; key: ValueOf; value: ValueOf; singleKey: boolean }
  | { kind: 'user_defined_value' }
  | { kind: 'literal_value'; value: string | number | boolean };
interface Property {
  name: string;
  type: ValueOf;
  required: boolean;
  aliases?: string[];
  containerProperty?: boolean;
}
interface Inherits {
  type: TypeName;
  generics?: ValueOf[];
}
type Body = { kind: 'properties'; properties: Property[] } | { kind: 'value'; value: ValueOf; codegenName?: string } | { kind: 'no_body' };
type TypeDefinition =
  | {
      kind: 'interface';
      name: TypeName;
      generics?: TypeName[];
      inherits?: Inherits;
      behaviors?: Inherits[];
      properties: Property[];
      shortcutProperty?: string;
      variants?: { kind: 'container' };
    }
  | { kind: 'request'; name: TypeName; generics?: TypeName[]; inherits?: Inherits; path: Property[]; query: Property[]; body: Body; attachedBehaviors?: string[] }
  | { kind: 'response'; name: TypeName; generics?: TypeName[]; body: Body }
  | { kind: 'enum'; name: TypeName; generics?: undefined; members: { name: string; aliases?: string[] }[]; isOpen?: boolean }
  | {
      kind: 'type_alias';
      name: TypeName;
      generics?: TypeName[];
      type: ValueOf;
      variants?: { kind: 'internal_tag'; tag: string; defaultTag?: string } | { kind: 'external_tag' } | { kind: 'untagged' };
    };
interface Endpoint {
  name: string;
  request: TypeName | null;
  response: TypeName | null;
  urls: { path: string; methods: string[] }[];
}
interface Schema {
  endpoints: Endpoint[];
  types: TypeDefinition[];
}

type Env = ReadonlyMap<string, ValueOf>;
const key = (t: TypeName) => `${t.namespace}::${t.name}`;
const EMPTY: Env = new Map();

/** Where the specification comes from (the package's dist/schema.json). */
export const SCHEMA_PATH = require.resolve('@elastic/request-converter/dist/schema.json');

let loaded: Specification | undefined;
/** The specification, parsed once per test process (10.7 MB). */
export function specification(): Specification {
  loaded ??= new Specification(JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as Schema);
  return loaded;
}

/** One HTTP request as a client sends it: the body is parsed JSON, or the lines of an NDJSON body. */
export interface HttpRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body?: unknown;
}

export class Specification {
  private readonly types = new Map<string, TypeDefinition>();
  readonly endpoints: Endpoint[];

  constructor(schema: Schema) {
    for (const type of schema.types) this.types.set(key(type.name), type);
    this.endpoints = schema.endpoints;
  }

  endpoint(name: string): Endpoint {
    const found = this.endpoints.find((e) => e.name === name);
    if (!found) throw new Error(`no endpoint ${name} in the specification`);
    return found;
  }

  /** The endpoint an HTTP request addresses: the URL template with the most literal segments that matches. */
  route(method: string, path: string): { endpoint: Endpoint; params: Record<string, string> } | undefined {
    const segments = (path.split('?')[0] ?? '').split('/').filter(Boolean).map(decodeURIComponent);
    let best: { endpoint: Endpoint; params: Record<string, string>; literals: number } | undefined;
    for (const endpoint of this.endpoints) {
      for (const url of endpoint.urls) {
        if (!url.methods.includes(method)) continue;
        const template = url.path.split('/').filter(Boolean);
        if (template.length !== segments.length) continue;
        const params: Record<string, string> = {};
        let literals = 0;
        const matches = template.every((part, i) => {
          const segment = segments[i] ?? '';
          if (part.startsWith('{')) {
            params[part.slice(1, -1)] = segment;
            return !segment.startsWith('_') || part === '{id}';
          }
          literals++;
          return part === segment;
        });
        if (matches && (!best || literals > best.literals)) best = { endpoint, params, literals };
      }
    }
    return best;
  }

  /** Errors of an HTTP request against its endpoint: route, query parameters, body (bulk: see es-rules.ts). */
  validateHttp(request: HttpRequest): { endpoint?: string; errors: string[] } {
    const routed = this.route(request.method, request.path);
    if (!routed) return { errors: [`${request.method} ${request.path}: no endpoint of the specification has this URL`] };
    const definition = this.requestType(routed.endpoint);
    const errors: string[] = [];
    const queryProps = this.queryProperties(definition);
    for (const [name, raw] of Object.entries(request.query)) {
      const prop = queryProps.find((p) => p.name === name || p.aliases?.includes(name));
      if (!prop) errors.push(`?${name}: not a query parameter of ${routed.endpoint.name}`);
      else errors.push(...this.checkString(raw, prop.type, `?${name}`, EMPTY));
    }
    if (request.body !== undefined && routed.endpoint.name !== 'bulk') errors.push(...this.checkBody(definition.body, request.body, routed.endpoint.name));
    return { endpoint: routed.endpoint.name, errors };
  }

  /**
   * Errors of a request as the client takes it (`estypes.*Request`, as the builders return it): every key must be
   * a path, query or body property of the endpoint's request type, with its type.
   */
  validateRequest(endpointName: string, request: Record<string, unknown>): string[] {
    const definition = this.requestType(this.endpoint(endpointName));
    const errors: string[] = [];
    const params = [...definition.path, ...this.queryProperties(definition)];
    const bodyProps = definition.body.kind === 'properties' ? definition.body.properties : [];
    const bodyValue = definition.body.kind === 'value' ? definition.body : undefined;
    for (const [name, value] of Object.entries(request)) {
      if (bodyValue && name === bodyValue.codegenName) {
        errors.push(...this.check(value, bodyValue.value, name, EMPTY));
        continue;
      }
      // A name that is both a query parameter and a body property (search's `sort`) goes in the body, as the client sends it.
      const prop = [...bodyProps, ...params].find((p) => p.name === name || p.aliases?.includes(name));
      if (!prop) errors.push(`${name}: not a parameter or body property of ${endpointName}`);
      else errors.push(...this.check(value, prop.type, name, EMPTY));
    }
    for (const prop of [...definition.path, ...bodyProps]) {
      if (prop.required && !(prop.name in request) && !prop.aliases?.some((a) => a in request)) errors.push(`${prop.name}: required by ${endpointName}`);
    }
    return errors;
  }

  /** Errors of a response body against the endpoint's response type. */
  validateResponse(endpointName: string, body: unknown): string[] {
    const endpoint = this.endpoint(endpointName);
    if (!endpoint.response) return [];
    const definition = this.types.get(key(endpoint.response));
    if (definition?.kind !== 'response') throw new Error(`no response type for ${endpointName}`);
    return this.checkBody(definition.body, body, `${endpointName} response`);
  }

  /**
   * Errors of a search response. Its aggregations are an untagged union of some 70 aggregate types in the model
   * (without `typed_keys`), so each one is checked against the type its request implies (AGGREGATE_TYPES), with
   * its sub-aggregations checked the same way, one level at a time.
   */
  validateSearchResponse(request: Record<string, unknown>, body: Record<string, unknown>): string[] {
    const { aggregations, ...rest } = body;
    const aggs = (request['aggs'] ?? request['aggregations']) as Record<string, unknown> | undefined;
    return [...this.validateResponse('search', rest), ...(aggs ? this.checkAggregations(aggs, aggregations, 'aggregations') : [])];
  }

  private checkAggregations(requested: Record<string, unknown>, answered: unknown, path: string): string[] {
    if (!isObject(answered)) return [`${path}: must be an object`];
    const errors: string[] = [];
    for (const [name, container] of Object.entries(requested)) {
      if (!isObject(container)) continue;
      const value = answered[name];
      const kind = Object.keys(container).find((k) => k !== 'aggs' && k !== 'aggregations' && k !== 'meta') ?? '';
      const type = AGGREGATE_TYPES[kind];
      if (!type) {
        errors.push(`${path}.${name}: no aggregate type known for ${kind}`);
        continue;
      }
      const sub = (container['aggs'] ?? container['aggregations']) as Record<string, unknown> | undefined;
      const strip = (bucketLike: unknown) =>
        isObject(bucketLike) && sub ? Object.fromEntries(Object.entries(bucketLike).filter(([k]) => !(k in sub))) : bucketLike;
      const buckets = isObject(value) && Array.isArray(value['buckets']) ? (value['buckets'] as unknown[]) : undefined;
      const shape = buckets ? { ...value as Record<string, unknown>, buckets: buckets.map(strip) } : strip(value);
      errors.push(...this.validateType('_types.aggregations', type, shape, `${path}.${name}`));
      if (sub) {
        for (const [i, bucket] of (buckets ?? [value]).entries()) errors.push(...this.checkAggregations(sub, bucket, `${path}.${name}${buckets ? `.buckets[${i}]` : ''}`));
      }
    }
    return errors;
  }

  /** Errors of a value against a named type (e.g. `_types.aggregations`, `CompositeAggregate`). */
  validateType(namespace: string, name: string, value: unknown, path = name): string[] {
    return this.check(value, { kind: 'instance_of', type: { namespace, name } }, path, EMPTY);
  }

  private requestType(endpoint: Endpoint) {
    const definition = endpoint.request ? this.types.get(key(endpoint.request)) : undefined;
    if (definition?.kind !== 'request') throw new Error(`no request type for ${endpoint.name}`);
    return definition;
  }

  private queryProperties(definition: Extract<TypeDefinition, { kind: 'request' }>): Property[] {
    const common = definition.attachedBehaviors?.includes('CommonQueryParameters')
      ? this.properties({ namespace: '_spec_utils', name: 'CommonQueryParameters' }, EMPTY).properties
      : [];
    return [...definition.query, ...common];
  }

  private checkBody(body: Body, value: unknown, path: string): string[] {
    if (body.kind === 'no_body') return value === undefined || value === '' ? [] : [`${path}: takes no body`];
    if (body.kind === 'value') return this.check(value, body.value, path, EMPTY);
    return this.checkProperties(value, body.properties, [], path, EMPTY);
  }

  /** A query-string value: numbers and booleans arrive as text, lists comma-separated. */
  private checkString(raw: string, type: ValueOf, path: string, env: Env): string[] {
    const parsed = raw === 'true' || raw === 'false' ? raw === 'true' : raw !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    const attempts = [parsed, raw, raw.split(',')];
    const results = attempts.map((v) => this.check(v, type, path, env));
    return results.find((r) => r.length === 0) ?? results[0] ?? [];
  }

  private check(value: unknown, type: ValueOf, path: string, env: Env): string[] {
    switch (type.kind) {
      case 'user_defined_value':
        return [];
      case 'literal_value':
        return value === type.value ? [] : [`${path}: must be ${JSON.stringify(type.value)} (got ${JSON.stringify(value)})`];
      case 'array_of':
        return Array.isArray(value)
          ? value.flatMap((item, i) => this.check(item, type.value, `${path}[${i}]`, env))
          : [`${path}: must be an array (got ${JSON.stringify(value)})`];
      case 'dictionary_of': {
        if (!isObject(value)) return [`${path}: must be an object (got ${JSON.stringify(value)})`];
        const entries = Object.entries(value);
        const errors = type.singleKey && entries.length !== 1 ? [`${path}: must have exactly one key (got ${entries.length})`] : [];
        return [...errors, ...entries.flatMap(([k, v]) => this.check(v, type.value, `${path}.${k}`, env))];
      }
      case 'union_of':
        return this.firstMatch(type.items.map((item) => () => this.check(value, item, path, env)), path, value);
      case 'instance_of':
        return this.checkInstance(value, type, path, env);
    }
  }

  /** A union passes when one member passes; otherwise the member that got deepest into the value reports its errors. */
  private firstMatch(attempts: (() => string[])[], path: string, value: unknown): string[] {
    let closest: string[] | undefined;
    const depth = (errors: string[]) => Math.max(...errors.map((e) => e.indexOf(':')));
    for (const attempt of attempts) {
      const errors = attempt();
      if (!errors.length) return [];
      if (!closest || depth(errors) > depth(closest) || (depth(errors) === depth(closest) && errors.length < closest.length)) closest = errors;
    }
    return closest ?? [`${path}: matches no member of its union (got ${JSON.stringify(value)})`];
  }

  private checkInstance(value: unknown, type: Extract<ValueOf, { kind: 'instance_of' }>, path: string, env: Env): string[] {
    const bound = env.get(key(type.type));
    if (bound) return this.check(value, bound, path, EMPTY);
    if (type.type.namespace === '_builtins') return checkBuiltin(value, type.type.name, path);
    const definition = this.types.get(key(type.type));
    // An unbound generic parameter (a document type: TDocument, TResult) takes any value.
    if (!definition) return [];
    const inner = bind(definition.generics, type.generics, env);
    switch (definition.kind) {
      case 'enum': {
        const names = definition.members.flatMap((m) => [m.name, ...(m.aliases ?? [])]);
        if (definition.isOpen && typeof value === 'string') return [];
        return names.includes(String(value)) && (typeof value === 'string' || typeof value === 'boolean')
          ? []
          : [`${path}: must be one of ${names.join(', ')} (got ${JSON.stringify(value)})`];
      }
      case 'type_alias': {
        const variants = definition.variants;
        if (variants?.kind === 'internal_tag' && definition.type.kind === 'union_of') {
          return this.checkTagged(value, definition.type.items, variants.tag, variants.defaultTag, path, inner);
        }
        return this.check(value, definition.type, path, inner);
      }
      case 'interface':
        return this.checkInterface(value, definition, path, inner);
      default:
        return [`${path}: ${definition.kind} type used as a value`];
    }
  }

  private checkTagged(value: unknown, items: ValueOf[], tag: string, defaultTag: string | undefined, path: string, env: Env): string[] {
    if (!isObject(value)) return [`${path}: must be an object with "${tag}"`];
    const wanted = value[tag] ?? defaultTag;
    for (const item of items) {
      if (item.kind !== 'instance_of') continue;
      const tagProp = this.properties(item.type, env).properties.find((p) => p.name === tag);
      const literal = tagProp?.type.kind === 'literal_value' ? tagProp.type.value : undefined;
      if (literal === wanted) return this.check(value, item, path, env);
    }
    return [`${path}.${tag}: ${JSON.stringify(wanted)} is no known variant`];
  }

  private checkInterface(value: unknown, definition: Extract<TypeDefinition, { kind: 'interface' }>, path: string, env: Env): string[] {
    const { properties, additional } = this.properties(definition.name, env);
    if (definition.shortcutProperty && !isObject(value)) {
      const shortcut = properties.find((p) => p.name === definition.shortcutProperty);
      if (shortcut) return this.check(value, shortcut.type, path, env);
    }
    if (!isObject(value)) return [`${path}: must be an object (got ${JSON.stringify(value)})`];
    const errors = this.checkProperties(value, properties, additional, path, env);
    if (definition.variants?.kind === 'container') {
      const variantNames = properties.filter((p) => !p.containerProperty).map((p) => p.name);
      const set = Object.keys(value).filter((k) => variantNames.includes(k) || properties.find((p) => p.aliases?.includes(k) && !p.containerProperty));
      const extra = additional.length ? Object.keys(value).filter((k) => !properties.some((p) => p.name === k || p.aliases?.includes(k))) : [];
      if (set.length + extra.length !== 1) errors.push(`${path}: a container takes exactly one of its variants (got ${[...set, ...extra].join(', ') || 'none'})`);
    }
    return errors;
  }

  private checkProperties(value: unknown, properties: Property[], additional: Inherits[], path: string, env: Env): string[] {
    if (!isObject(value)) return [`${path}: must be an object (got ${JSON.stringify(value)})`];
    const errors: string[] = [];
    const unknown: string[] = [];
    for (const [name, item] of Object.entries(value)) {
      const prop = properties.find((p) => p.name === name || p.aliases?.includes(name));
      if (prop) errors.push(...this.check(item, prop.type, `${path}.${name}`, env));
      else unknown.push(name);
    }
    for (const prop of properties) {
      if (prop.required && !(prop.name in value) && !prop.aliases?.some((a) => a in value)) errors.push(`${path}.${prop.name}: required`);
    }
    const behaviour = additional[0];
    const valueType = behaviour?.generics?.[1];
    if (behaviour && valueType) {
      if (behaviour.type.name === 'AdditionalProperty' && unknown.length > 1) errors.push(`${path}: takes one field key (got ${unknown.join(', ')})`);
      for (const name of unknown) errors.push(...this.check(value[name], valueType, `${path}.${name}`, env));
    } else {
      for (const name of unknown) errors.push(`${path}.${name}: unknown property`);
    }
    return errors;
  }

  /** Own and inherited properties of an interface or request, and its additional-property behaviours. */
  private properties(name: TypeName, env: Env): { properties: Property[]; additional: Inherits[] } {
    const definition = this.types.get(key(name));
    if (!definition || (definition.kind !== 'interface' && definition.kind !== 'request')) return { properties: [], additional: [] };
    const own = definition.kind === 'interface' ? definition.properties : definition.body.kind === 'properties' ? definition.body.properties : [];
    const additional = (definition.kind === 'interface' ? (definition.behaviors ?? []) : [])
      .filter((b) => b.type.name === 'AdditionalProperty' || b.type.name === 'AdditionalProperties')
      .map((b) => ({ type: b.type, generics: b.generics?.map((g) => substitute(g, env)) }));
    if (!definition.inherits) return { properties: own.map((p) => ({ ...p, type: substitute(p.type, env) })), additional };
    const parentEnv = bind(this.types.get(key(definition.inherits.type))?.generics, definition.inherits.generics?.map((g) => substitute(g, env)), EMPTY);
    const parent = this.properties(definition.inherits.type, parentEnv);
    return {
      properties: [...parent.properties, ...own.map((p) => ({ ...p, type: substitute(p.type, env) }))],
      additional: [...additional, ...parent.additional],
    };
  }
}

/** The aggregate type the model gives each aggregation the engine sends (terms on keyword fields: string keys). */
const AGGREGATE_TYPES: Record<string, string> = {
  terms: 'StringTermsAggregate',
  composite: 'CompositeAggregate',
  cardinality: 'CardinalityAggregate',
  filter: 'FilterAggregate',
  min: 'MinAggregate',
  max: 'MaxAggregate',
  top_hits: 'TopHitsAggregate',
  date_histogram: 'DateHistogramAggregate',
};

/** Binds a type's generic parameters to the values given where it is used (resolved in the user's environment). */
function bind(params: TypeName[] | undefined, values: ValueOf[] | undefined, env: Env): Env {
  if (!params?.length || !values?.length) return EMPTY;
  return new Map(params.map((param, i) => [key(param), substitute(values[i] ?? { kind: 'user_defined_value' }, env)]));
}

/** Replaces generic parameters bound in `env` inside a type expression. */
function substitute(type: ValueOf, env: Env): ValueOf {
  if (!env.size) return type;
  switch (type.kind) {
    case 'instance_of':
      return env.get(key(type.type)) ?? { ...type, ...(type.generics ? { generics: type.generics.map((g) => substitute(g, env)) } : {}) };
    case 'array_of':
      return { ...type, value: substitute(type.value, env) };
    case 'union_of':
      return { ...type, items: type.items.map((i) => substitute(i, env)) };
    case 'dictionary_of':
      return { ...type, key: substitute(type.key, env), value: substitute(type.value, env) };
    default:
      return type;
  }
}

function checkBuiltin(value: unknown, name: string, path: string): string[] {
  const ok =
    name === 'string' || name === 'binary'
      ? typeof value === 'string'
      : name === 'number'
        ? typeof value === 'number' && Number.isFinite(value)
        : name === 'boolean'
          ? typeof value === 'boolean'
          : name === 'null'
            ? value === null
            : true;
  return ok ? [] : [`${path}: must be a ${name} (got ${JSON.stringify(value)})`];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
