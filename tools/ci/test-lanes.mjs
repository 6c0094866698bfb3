#!/usr/bin/env node
// `npm test`: lint, typecheck and test of every project through Nx, in lanes, so that the longest suites start as
// soon as the apps are built instead of last.
//
// One `nx run-many -t lint typecheck test` starts, among the ready tasks, those of the projects others depend on
// first (the libraries), then the others in graph order: the e2e, query-api, `npm start` and bundle tests (each
// minutes long, each waiting mostly on processes it started) came last, and the run then waited on them alone.
// Here:
//   build    the four apps (and the gateway's views), beside   checks   lint and typecheck of every project;
//   then, once built, three test lanes at once: e2e, query-api, and every other project's tests;
//   last, alone and one after the other, the suites that time recovery or count work under load (ALONE).
// The test lanes run with --excludeTaskDependencies: the builds are done, and no two Nx runs build the same app at once.
// Each lane's output goes through whole lines (Nx prefixes them with the project), and the exit status is the first
// failing lane's. With NX_PROFILE_DIR set, each lane writes its Nx task profile there (<lane>.json) for the summary.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '../..');
/** The nx command line, as npm links it into node_modules/.bin (the package's "bin"). */
const NX = join(root, 'node_modules/.bin/nx');

/** The long-running test projects that get a lane of their own; every other project's tests share one. */
export const OWN_LANES = ['e2e', 'query-api'];

/**
 * The e2e suites that run alone, one after the other, once every lane is done. The fault suite times each app's
 * recovery under a steady load and asserts that calls in flight at a SIGTERM still succeed within the transport's 10 s:
 * beside the lanes (load average 27-30) some got 504 in each of three runs, alone it passed. The replicas suite counts
 * the Redis round trips of one call and expects 1,000 calls all answered: beside the lanes (load average 16-34) it saw
 * a stray command in the call's window once and three 503s of 1,000 calls once.
 */
export const ALONE = { project: 'e2e', suite: '(faults|transport-replicas)\\.spec' };

/** The Nx runs of `npm test`, in three phases (each phase's lanes run at once). */
export function plan(own = OWN_LANES, alone = ALONE) {
  const common = ['--outputStyle=stream'];
  const tests = ['-t', 'test', '--excludeTaskDependencies', ...common];
  const skipAlone = (project) => (project === alone.project ? [`--testPathIgnorePatterns=${alone.suite}`] : []);
  return [
    [
      { name: 'build', args: ['run-many', '-t', 'build', '--parallel=2', ...common] },
      { name: 'checks', args: ['run-many', '-t', 'lint', 'typecheck', '--parallel=2', ...common] },
    ],
    [
      ...own.map((project) => ({ name: `test-${project}`, args: ['run-many', '-p', project, '--parallel=1', ...tests, ...skipAlone(project)] })),
      { name: 'test-others', args: ['run-many', `--exclude=${own.join(',')}`, '--parallel=2', ...tests] },
    ],
    [{ name: `test-${alone.project}-alone`, args: ['run-many', '-p', alone.project, ...tests, `--testPathPatterns=${alone.suite}`, '--runInBand'] }],
  ];
}

function runLane({ name, args }, profileDir) {
  const env = { ...process.env };
  // Nx joins NX_PROFILE to its working directory.
  if (profileDir) env.NX_PROFILE = relative(root, resolve(profileDir, `${name}.json`));
  const started = Date.now();
  const child = spawn(process.execPath, [NX, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => process.stdout.write(`${line}\n`));
  createInterface({ input: child.stderr, crlfDelay: Infinity }).on('line', (line) => process.stderr.write(`${line}\n`));
  console.log(`lanes: ${name} started (nx ${args.join(' ')})`);
  return new Promise((done) => {
    child.once('error', (error) => {
      console.error(`lanes: ${name} could not start: ${error.message}`);
      done(1);
    });
    child.once('close', (code, signal) => {
      console.log(`lanes: ${name} ended with ${signal ?? code} after ${((Date.now() - started) / 1000).toFixed(0)} s`);
      done(code ?? 1);
    });
  });
}

/**
 * CPU seconds of every finished child process (the lanes and all they started), from /proc/self/stat's cutime and
 * cstime; null where there is no /proc. Steadier than the wall time on a shared machine.
 */
export function childrenCpuSeconds(stat = existsSync('/proc/self/stat') ? readFileSync('/proc/self/stat', 'utf8') : null) {
  if (!stat) return null;
  // Fields after the command name (which may hold spaces) in parentheses; cutime and cstime are fields 16 and 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100; // USER_HZ: 100 on Linux
}

async function main() {
  const started = Date.now();
  const profileDir = process.env.NX_PROFILE_DIR;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const [first, second, third] = plan();
  // Phase one: the builds beside the checks; the test lanes start when the builds end, the checks going on; the suite
  // that runs alone starts when all of them have ended.
  const checks = runLane(first[1], profileDir);
  const built = await runLane(first[0], profileDir);
  if (built !== 0) console.error('lanes: the build failed; the tests need it and are not run');
  const tested = built === 0 ? await Promise.all(second.map((lane) => runLane(lane, profileDir))) : [built];
  const checked = await checks;
  if (built === 0) for (const lane of third) tested.push(await runLane(lane, profileDir));
  process.exitCode = tested.find((code) => code !== 0) ?? checked;
  const cpu = childrenCpuSeconds();
  console.log(`lanes: all ended after ${((Date.now() - started) / 1000).toFixed(0)} s${cpu === null ? '' : `, ${cpu.toFixed(0)} s of CPU`}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) await main();
