#!/usr/bin/env node
// `npx nx run docs:generate` rewrites the generated sections of the docs (the tool table in README.md, the
// env-var tables in docs/operations.md); `--check` only says whether they are current and exits 1 when not.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { markdownFiles } from './links.mjs';
import { renderDocs } from './render.mjs';
import { loadSources, ROOT } from './sources.mjs';

const current = Object.fromEntries(markdownFiles(ROOT).map((path) => [path, readFileSync(join(ROOT, path), 'utf8')]));
const generated = renderDocs(current, await loadSources());
const stale = Object.keys(current).filter((path) => generated[path] !== current[path]);

if (process.argv.includes('--check')) {
  if (stale.length > 0) {
    process.stderr.write(`generated sections are stale in ${stale.join(', ')}: run \`npx nx run docs:generate\`\n`);
    process.exit(1);
  }
  process.stdout.write('generated sections are current\n');
} else {
  for (const path of stale) writeFileSync(join(ROOT, path), generated[path]);
  process.stdout.write(stale.length > 0 ? `rewritten: ${stale.join(', ')}\n` : 'generated sections already current\n');
}
