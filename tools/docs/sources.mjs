// Loads the facts the README documents from their one source: the tool catalogue and the zod config
// schemas. They are TypeScript behind the tsconfig path aliases (@adintel/*), so they are read through
// jiti with those aliases rather than from a build.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJiti } from 'jiti';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** The apps whose configuration is documented, in README order, with their config module. */
export const APPS = ['auth-server', 'mcp-gateway', 'query-api', 'metering'];

function aliases() {
  const { compilerOptions } = JSON.parse(readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8'));
  return Object.fromEntries(Object.entries(compilerOptions.paths ?? {}).map(([alias, [target]]) => [alias, join(ROOT, target)]));
}

export async function loadSources() {
  const jiti = createJiti(import.meta.url, { alias: aliases(), fsCache: false });
  const catalogue = await jiti.import(join(ROOT, 'libs/tool-catalogue/src/index.ts'));
  const config = await jiti.import(join(ROOT, 'libs/config/src/load-config.ts'));
  const apps = [];
  for (const name of APPS) {
    const { appConfigSchema } = await jiti.import(join(ROOT, 'apps', name, 'src/config.ts'));
    apps.push({ name, shape: appConfigSchema.shape });
  }
  const destinations = await jiti.import(join(ROOT, 'apps/query-api/src/ingest/destinations.ts'));
  return { catalogue, sharedShape: config.baseConfigShape, apps, destinations };
}
