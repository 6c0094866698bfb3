import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { anchorsOf, brokenLinks, markdownFiles } from './links.mjs';
import { renderDocs, renderEnvTable, renderSections, replaceSection } from './render.mjs';
import { APPS, loadSources, ROOT } from './sources.mjs';

const sources = await loadSources();
const files = markdownFiles(ROOT);
const texts = Object.fromEntries(files.map((path) => [path, readFileSync(join(ROOT, path), 'utf8')]));

test('the committed docs match the catalogue and the config schemas (else run `npx nx run docs:generate`)', () => {
  const generated = renderDocs(texts, sources);
  for (const path of files) assert.equal(generated[path], texts[path], `${path} is stale`);
});

test('the tool table is in README.md and the configuration tables in docs/operations.md', () => {
  assert.match(texts['README.md'], /^<!-- generated:tools -->$/m);
  for (const name of ['tool-guides', 'destinations']) assert.match(texts['docs/agents.md'], new RegExp(`^<!-- generated:${name} -->$`, 'm'));
  for (const name of ['env:shared', ...APPS.map((app) => `env:${app}`)]) {
    assert.match(texts['docs/operations.md'], new RegExp(`^<!-- generated:${name} -->$`, 'm'));
  }
});

test('every relative link and anchor of the Markdown files resolves', () => {
  assert.ok(files.includes('README.md') && files.some((path) => path.startsWith('docs/')), files.join(', '));
  assert.deepEqual(brokenLinks(ROOT, files), []);
});

test('the link check names a missing file, a missing anchor, and a link leaving the repository', () => {
  const root = mkdtempSync(join(tmpdir(), 'docs-links-'));
  const write = (path, text) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  try {
    write('docs/guide.md', '# Guide\n\n## Feeding data: `ingest`\n\n<a id="custom"></a>\n');
    write(
      'README.md',
      [
        '[ok](docs/guide.md) [ok](docs/guide.md#feeding-data-ingest) [ok](docs/guide.md#custom) [ok](#top)',
        '[gone](docs/missing.md) [bad anchor](docs/guide.md#feeding) [out](../elsewhere.md) [web](https://example.com/x#y)',
        '',
        '# Top',
        '',
        '```',
        '[in code](nowhere.md)',
        '```',
      ].join('\n'),
    );
    assert.deepEqual(brokenLinks(root, ['README.md', 'docs/guide.md']), [
      'README.md: docs/missing.md (no such file)',
      'README.md: docs/guide.md#feeding (no heading or anchor "feeding" in docs/guide.md)',
      'README.md: ../elsewhere.md (outside the repository)',
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('anchors are the headings as GitHub slugs them, numbered when repeated', () => {
  const anchors = anchorsOf('# Chat clients: Claude, ChatGPT\n## `search_ads` as the service runs it\n## Tests\n### Tests\n');
  assert.deepEqual([...anchors], ['chat-clients-claude-chatgpt', 'search_ads-as-the-service-runs-it', 'tests', 'tests-1']);
});

test('each generated section stands in exactly one file', () => {
  const readme = texts['README.md'];
  assert.throws(() => renderDocs({ ...texts, 'docs/copy.md': readme }, sources), /"tools" must stand in exactly one file \(found in: README.md, docs\/copy.md\)/);
  assert.throws(() => renderDocs({ 'README.md': '<!-- generated:nope -->\n<!-- /generated:nope -->\n' }, sources), /unknown generated section "nope"/);
});

test('there is one env table per app plus the shared one, and the tool table lists every tool', () => {
  const sections = renderSections(sources);
  assert.deepEqual(Object.keys(sections), ['tools', 'tool-guides', 'destinations', 'env:shared', ...APPS.map((app) => `env:${app}`)]);
  for (const tool of sources.catalogue.TOOLS) assert.match(sections['tool-guides'], new RegExp(`^\\| \`${tool.name}\` \\| \\S`, 'm'));
  for (const type of ['app_store', 'messenger', 'social_profile', 'marketplace', 'online_shop', 'website']) {
    assert.match(sections.destinations, new RegExp(`^\\| \`${type}\` \\|`, 'm'));
  }
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
