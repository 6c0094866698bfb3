#!/usr/bin/env node
// The production bundle every image is made from (docker/Dockerfile runs this script; so does the bundle test):
//   apps/<app>/          `nx build` output of the four apps (production configuration)
//   edge/                the public front door (tools/dev-stack) for the compose edge
//   libs/mcp-views/      the built MCP Apps views the gateway serves (MCP_VIEWS_DIR, set by docker/Dockerfile)
//   package.json         the workspace's runtime `dependencies` only
//   package-lock.json    the workspace lockfile pruned to what those need (entries marked `dev` dropped), so
//                        `npm ci --omit=dev` installs exactly the versions the tests ran against
//
//   node tools/deploy/build-bundle.mjs --out <dir> [--skip-build] [--link-node-modules]
// --link-node-modules fills <dir>/node_modules from this workspace's node_modules with exactly the packages of
// the pruned lockfile (what `npm ci --omit=dev` installs, without a registry): the bundle test runs on it.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { APP_PORTS } from '../dev-stack/routes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const APPS = Object.keys(APP_PORTS);
/** Files of tools/dev-stack the edge needs at run time. */
const EDGE_FILES = ['routes.mjs', 'front-door.mjs', 'edge.mjs'];
/** Where the bundle keeps the gateway's built views, relative to its root (the apps' working directory). */
export const BUNDLE_VIEWS_DIR = 'libs/mcp-views';

/** The workspace's lockfile reduced to the runtime dependency tree of `manifest`. */
export function pruneLockfile(lock, manifest) {
  const packages = { '': { name: manifest.name, version: manifest.version, license: manifest.license, dependencies: manifest.dependencies, engines: manifest.engines } };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path !== '' && !entry.dev) packages[path] = entry;
  }
  return { ...lock, name: manifest.name, packages };
}

/** The workspace's package.json reduced to what the bundle runs with. */
export function runtimeManifest(workspace) {
  return {
    name: `${workspace.name}-runtime`,
    version: workspace.version,
    private: true,
    license: workspace.license,
    engines: workspace.engines,
    dependencies: workspace.dependencies,
  };
}

function run(command, args) {
  // A test that runs this under `nx run-many` must not pass on NX_INVOCATION_ROOT_PID: the outer run has registered
  // the builds already, and Nx would take this nested build of them for a recursive loop.
  const env = { ...process.env };
  delete env.NX_INVOCATION_ROOT_PID;
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...env, NX_TUI: 'false', NX_DAEMON: 'false' } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
}

/** Copies each package of the pruned lockfile from the workspace, without the packages nested inside it. */
function linkNodeModules(lock, out) {
  for (const path of Object.keys(lock.packages)) {
    if (path === '') continue;
    const from = join(root, path);
    // An optional package missing here is one for another platform (sharp's prebuilt libvips for macOS, Windows...):
    // npm ci skips it on this one, and so does the bundle.
    if (!existsSync(from) && lock.packages[path].optional) continue;
    if (!existsSync(from)) throw new Error(`${path} is in the lockfile but not installed here: run npm ci`);
    const nested = join(from, 'node_modules');
    cpSync(from, join(out, path), { recursive: true, dereference: false, filter: (source) => source !== nested });
  }
}

export function buildBundle({ out, skipBuild = false, linkModules = false }) {
  if (!skipBuild) run(join(root, 'node_modules/.bin/nx'), ['run-many', '-t', 'build', '-p', APPS.join(','), '--outputStyle=stream']);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'edge'), { recursive: true });
  for (const app of APPS) {
    const built = join(root, 'dist/apps', app);
    if (!existsSync(join(built, 'main.js'))) throw new Error(`${built}/main.js is missing: the build did not produce ${app}`);
    cpSync(built, join(out, 'apps', app), { recursive: true });
  }
  const views = join(root, 'dist/libs/mcp-views');
  if (!existsSync(views)) throw new Error(`${views} is missing: the gateway build did not build its views`);
  cpSync(views, join(out, BUNDLE_VIEWS_DIR), { recursive: true });
  for (const file of EDGE_FILES) cpSync(join(root, 'tools/dev-stack', file), join(out, 'edge', file));
  const manifest = runtimeManifest(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')));
  const lock = pruneLockfile(JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')), manifest);
  writeFileSync(join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(out, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  if (linkModules) linkNodeModules(lock, out);
  return { out, packages: Object.keys(lock.packages).length - 1 };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: join(root, 'dist/bundle') },
      'skip-build': { type: 'boolean', default: false },
      'link-node-modules': { type: 'boolean', default: false },
    },
  });
  const started = performance.now();
  const { out, packages } = buildBundle({ out: resolve(values.out), skipBuild: values['skip-build'], linkModules: values['link-node-modules'] });
  console.log(`bundle: ${APPS.length} apps and the edge in ${out}; ${packages} runtime packages in the pruned lockfile (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
