// A copy of this workspace for the tests that build the apps themselves (`npm start`, the production bundle).
//
// Without the Nx daemon (CI runs without it) Nx cannot tell whether a cached task's outputs on disk are already the
// cached ones, so every cache hit deletes dist/apps/<app> and writes it again. Run in this workspace, those nested
// builds rewrote dist/apps/query-api under query-api's tests that run from it: a CI run's store-load suite found no CLI
// to run (all nine tests failed on a seed's exit code 1), an earlier one an app's main.js missing. In a copy they
// write the copy's dist; the copy shares this workspace's Nx cache and its records, so a build done here is a cache
// hit there, not a second webpack build.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/** The files of this workspace git would commit: tracked ones as they are now, and new ones it does not ignore. */
function workspaceFiles() {
  const listed = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (listed.status !== 0) throw new Error(`git ls-files failed in ${ROOT}: ${listed.stderr}`);
  // A tracked file deleted in the work tree is still listed: the copy has what the work tree has.
  return listed.stdout.split('\0').filter((file) => file && existsSync(join(ROOT, file)));
}

/**
 * Copies the workspace's files to a new temporary directory and links its node_modules there. `env` is what an Nx run
 * in the copy needs to share this workspace's cache (CI's own cache when set, .nx/ otherwise); `remove()` deletes it.
 */
export function copyWorkspace(prefix = 'adintel-workspace-') {
  const root = mkdtempSync(join(tmpdir(), prefix));
  for (const file of workspaceFiles()) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    cpSync(join(ROOT, file), join(root, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  const env = {
    NX_CACHE_DIRECTORY: process.env.NX_CACHE_DIRECTORY ?? join(ROOT, '.nx/cache'),
    NX_WORKSPACE_DATA_DIRECTORY: process.env.NX_WORKSPACE_DATA_DIRECTORY ?? join(ROOT, '.nx/workspace-data'),
  };
  return { root, env, remove: () => rmSync(root, { recursive: true, force: true }) };
}
