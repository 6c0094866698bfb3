// Runs a TypeScript bench script of this folder with the workspace's `@adintel/*` paths (tsconfig.base.json), the way
// jest's preset resolves them for the e2e tests: node apps/e2e/bench/run.mjs <script.ts> [args...]
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJiti } from 'jiti';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const { paths } = JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8')).compilerOptions;
const alias = Object.fromEntries(Object.entries(paths).map(([name, [target]]) => [name, resolve(root, target)]));
const [script, ...args] = process.argv.slice(2);
process.argv = [process.argv[0], script, ...args];
await createJiti(import.meta.url, { alias }).import(resolve(script));
