// Renders the generated sections of the docs (the tool table in README.md, the env tables in
// docs/operations.md). Pure functions of the catalogue and the config schemas, so the staleness test and the
// generator share every line of it.

/** Replaces what stands between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`. */
export function replaceSection(text, name, body) {
  const start = `<!-- generated:${name} -->`;
  const end = `<!-- /generated:${name} -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`no ${start} ... ${end} markers`);
  return `${text.slice(0, from + start.length)}\n${body.trimEnd()}\n${text.slice(to)}`;
}

const cell = (text) => String(text).replaceAll('|', '\\|').replaceAll('\n', ' ');
const code = (text) => `\`${text}\``;
const table = (head, rows) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n');

/**
 * Tool table: name, REST twin, cost and page size, all read from the catalogue; then the priced operations beside
 * the tools (media_file), which are not MCP tools.
 */
export function renderToolTable({ TOOLS, PRICED_OPERATIONS, REST_PREFIX, describeCost, inputJsonSchema }) {
  const rows = TOOLS.map((tool) => {
    let cost = describeCost(tool.cost);
    const mcp = inputJsonSchema(tool, 'mcp').properties?.limit;
    const http = inputJsonSchema(tool, 'http').properties?.limit;
    if (mcp && http) {
      const defaults = mcp.default === http.default ? `default ${http.default}` : `MCP default ${mcp.default}, REST ${http.default}`;
      cost += ` (${defaults} per page, max ${http.maximum})`;
    }
    return [code(tool.name), code(tool.http.path), cost, tool.title];
  });
  for (const operation of PRICED_OPERATIONS) {
    const cost = operation.chargedWhen ? `${describeCost(operation.cost).replace(/ per call$/, '')}, ${operation.chargedWhen}` : describeCost(operation.cost);
    rows.push([code(operation.name), code(operation.httpPath), `${cost} (not an MCP tool: MCP reads it with \`resources/read\`)`, operation.title]);
  }
  return table(['Tool', `REST twin (\`GET ${REST_PREFIX}\` + …)`, 'Cost', 'What it answers'], rows);
}

/** Env table of one zod object shape: variable, default and the `.describe()` text. */
export function renderEnvTable(shape, { except = {} } = {}) {
  const rows = Object.entries(shape)
    .filter(([key, schema]) => except[key] !== schema)
    .map(([key, schema]) => {
      const description = describedText(schema);
      if (!description) throw new Error(`${key} has no .describe() text: every config variable needs one`);
      const values = allowedValues(schema);
      const meaning = values ? `${description} (one of ${values.map(code).join(', ')})` : description;
      return [code(key), defaultText(schema), meaning];
    });
  return table(['Variable', 'Default', 'Meaning'], rows);
}

function describedText(schema) {
  for (const s of layers(schema)) if (s.description) return s.description;
  return undefined;
}

function defaultText(schema) {
  for (const s of layers(schema)) {
    if (s.def.type === 'default' || s.def.type === 'prefault') {
      const value = typeof s.def.defaultValue === 'function' ? s.def.defaultValue() : s.def.defaultValue;
      // A list variable is written as the comma-separated string the environment holds.
      if (Array.isArray(value)) return code(value.join(','));
      return code(typeof value === 'string' ? value : JSON.stringify(value));
    }
  }
  return '–';
}

function allowedValues(schema) {
  for (const s of layers(schema)) if (s.def.type === 'enum') return Object.values(s.def.entries);
  return undefined;
}

/** The schema and what it wraps: optional/default/nullable inner types and the input side of pipes. */
function* layers(schema) {
  let current = schema;
  while (current) {
    yield current;
    current = current.def.innerType ?? (current.def.type === 'pipe' ? current.def.in : undefined);
  }
}

/** The destination rules (apps/query-api/src/ingest/destinations.ts): first match wins, else `website`. */
export function renderDestinationRules({ DESTINATION_RULES }) {
  const list = (values) => (values?.length ? values.map(code).join(', ') : '–');
  const rows = DESTINATION_RULES.map((rule) => [
    code(rule.type),
    list(rule.domains),
    list(rule.brands?.map((brand) => `${brand}.*`)),
    [list(rule.hostPrefixes), rule.paths ? `path ${code(rule.paths.source)}` : ''].filter((x) => x && x !== '–').join('; ') || '–',
  ]);
  rows.push([code('website'), 'any other landing URL', '–', '–']);
  return table(['Type', 'Host is, or is under', 'Registrable domain named', 'Host starts with / path'], rows);
}

/** Each tool's guide as its description renders it: when to use it, when not (and what instead). */
export function renderToolGuides({ TOOLS }) {
  const part = (tool, label) => tool.description.split('\n').find((line) => line.startsWith(label))?.slice(label.length).trim() ?? '';
  return table(['Tool', 'When to use', 'Not for'], TOOLS.map((tool) => [code(tool.name), part(tool, 'When to use:'), part(tool, 'Not for:')]));
}

/** Every generated section, by marker name. */
export function renderSections({ catalogue, sharedShape, apps, destinations }) {
  const sections = {
    tools: renderToolTable(catalogue),
    'tool-guides': renderToolGuides(catalogue),
    destinations: renderDestinationRules(destinations),
    'env:shared': renderEnvTable(sharedShape),
  };
  for (const app of apps) sections[`env:${app.name}`] = renderEnvTable(app.shape, { except: sharedShape });
  return sections;
}

/** A section's opening marker, alone on its line. */
const MARKER = /^<!-- generated:(\S+) -->$/gm;

/**
 * Renders every generated section into the file that holds its markers. `texts` maps paths to Markdown
 * texts; the answer maps the same paths to their texts with current sections. Each section must stand in
 * exactly one file, and every marker must name a known section.
 */
export function renderDocs(texts, sources) {
  const sections = renderSections(sources);
  const homes = Object.fromEntries(Object.keys(sections).map((name) => [name, []]));
  for (const [path, text] of Object.entries(texts)) {
    for (const [, name] of text.matchAll(MARKER)) {
      if (!homes[name]) throw new Error(`${path}: unknown generated section "${name}"`);
      homes[name].push(path);
    }
  }
  for (const [name, paths] of Object.entries(homes)) {
    if (paths.length !== 1) throw new Error(`the generated section "${name}" must stand in exactly one file (found in: ${paths.join(', ') || 'none'})`);
  }
  return Object.fromEntries(
    Object.entries(texts).map(([path, text]) => [
      path,
      Object.entries(sections)
        .filter(([name]) => homes[name][0] === path)
        .reduce((out, [name, body]) => replaceSection(out, name, body), text),
    ]),
  );
}
