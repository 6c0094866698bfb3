// The architecture rules in eslint.config.mjs are only worth what they catch: this lints small probe files with the
// workspace's own config and checks that an import cycle and an import from query-api's store/ into a feature folder
// are errors. The probes are written to a throw-away folder that matches the config's globs and removed after.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { ESLint } from 'eslint';

const root = resolve(import.meta.dirname, '../..');
const probe = join(root, 'libs', `lint-probe-${process.pid}`, 'src');
// The probes belong to no tsconfig, so the type-aware rules (which need one) are switched off for them.
const eslint = new ESLint({
  cwd: root,
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off' },
  },
});

const ruleIds = (results) => results.flatMap((r) => r.messages.map((m) => m.ruleId));

before(() => mkdirSync(probe, { recursive: true }));
after(() => rmSync(join(probe, '..'), { recursive: true, force: true }));

test('an import cycle inside a project is a lint error', async () => {
  writeFileSync(join(probe, 'a.ts'), "import { b } from './b';\nexport const a = (): unknown => b;\n");
  writeFileSync(join(probe, 'b.ts'), "import { a } from './a';\nexport const b = (): unknown => a;\n");
  const results = await eslint.lintFiles([join(probe, 'a.ts'), join(probe, 'b.ts')]);
  assert.deepEqual(ruleIds(results), ['import-x/no-cycle', 'import-x/no-cycle']);
});

test('a one-way import is not a cycle', async () => {
  writeFileSync(join(probe, 'c.ts'), "export const c = 1;\n");
  writeFileSync(join(probe, 'd.ts'), "import { c } from './c';\nexport const d = c + 1;\n");
  const results = await eslint.lintFiles([join(probe, 'c.ts'), join(probe, 'd.ts')]);
  assert.deepEqual(ruleIds(results), []);
});

test("query-api's store/ may not import a feature folder", async () => {
  const code = "import { x } from '../../media/x';\nexport const y = x;\n";
  const [result] = await eslint.lintText(code, { filePath: join(root, 'apps/query-api/src/store/sqlite/probe.ts') });
  assert.ok(
    result.messages.some((m) => m.ruleId === 'no-restricted-imports' && /store\/ imports no feature folder/.test(m.message)),
    JSON.stringify(result.messages),
  );
});
