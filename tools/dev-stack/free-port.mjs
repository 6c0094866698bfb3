// The free-port picker of libs/testing (libs/testing/src/free-port.ts: below the ephemeral range, never the same port
// twice in a process), for the dev-stack and deploy tests, which are plain Node scripts: read through jiti, as
// tools/docs reads its TypeScript, so that one picker serves every test of a process.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJiti } from 'jiti';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** @type {{ freePort: () => Promise<number> }} */
const picker = await createJiti(import.meta.url, { fsCache: false }).import(join(ROOT, 'libs/testing/src/free-port.ts'));

export const { freePort } = picker;
