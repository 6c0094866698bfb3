import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { renderEnvTable, renderReadme, renderSections, replaceSection } from './render.mjs';
import { APPS, loadSources, ROOT } from './sources.mjs';

const sources = await loadSources();

test('the committed README.md matches the catalogue and the config schemas (else run `npx nx run docs:generate`)', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  assert.equal(renderReadme(readme, sources), readme);
});

test('there is one env table per app plus the shared one, and the tool table lists every tool', () => {
  const sections = renderSections(sources);
  assert.deepEqual(Object.keys(sections), ['tools', 'env:shared', ...APPS.map((app) => `env:${app}`)]);
  for (const tool of sources.catalogue.TOOLS) assert.match(sections.tools, new RegExp(`\\| \`${tool.name}\` \\| \`${tool.http.path.replace(/[{}]/g, '\\$&')}\``));
  assert.match(sections.tools, /\| `search_ads` \| `\/ads` \| 1 token per ad returned \(MCP default 20, REST 50 per page, max 100\)/);
});

test('an app table lists its own variables and PORT, with the default from the schema; shared ones once', () => {
  const sections = renderSections(sources);
  assert.match(sections['env:metering'], /\| `PORT` \| `3004` \|/);
  assert.match(sections['env:metering'], /\| `RESERVATION_TTL_SECONDS` \| `120` \|/);
  assert.doesNotMatch(sections['env:metering'], /REDIS_URL/);
  assert.match(sections['env:shared'], /\| `LOG_LEVEL` \| `info` \| .*\(one of `fatal`, /);
});

test('a variable without a .describe() text fails the generation, naming it', async () => {
  const { z } = await import('zod');
  assert.throws(() => renderEnvTable({ NEW_VAR: z.string().default('x') }), /NEW_VAR has no \.describe\(\) text/);
  assert.match(renderEnvTable({ NEW_VAR: z.string().optional().describe('what it does') }), /\| `NEW_VAR` \| – \| what it does \|/);
});

test('sections are replaced between their markers only, and missing markers are an error', () => {
  const text = 'a\n<!-- generated:x -->\nold\n<!-- /generated:x -->\nb\n';
  assert.equal(replaceSection(text, 'x', 'new\n'), 'a\n<!-- generated:x -->\nnew\n<!-- /generated:x -->\nb\n');
  assert.throws(() => replaceSection(text, 'y', 'new'), /no <!-- generated:y -->/);
});
