#!/usr/bin/env node
// `npx nx run docs:generate` rewrites the generated sections of README.md (the tool table and the
// env-var tables); `--check` only says whether they are current and exits 1 when they are not.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderReadme } from './render.mjs';
import { loadSources, ROOT } from './sources.mjs';

const readmePath = join(ROOT, 'README.md');
const current = readFileSync(readmePath, 'utf8');
const generated = renderReadme(current, await loadSources());

if (process.argv.includes('--check')) {
  if (generated !== current) {
    process.stderr.write('README.md generated sections are stale: run `npx nx run docs:generate`\n');
    process.exit(1);
  }
  process.stdout.write('README.md generated sections are current\n');
} else if (generated === current) {
  process.stdout.write('README.md already current\n');
} else {
  writeFileSync(readmePath, generated);
  process.stdout.write('README.md generated sections rewritten\n');
}
