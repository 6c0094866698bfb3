/**
 * Top self-time functions of a V8 CPU profile (`node --cpu-prof`), and the share of time per package:
 * node apps/e2e/bench/run.mjs apps/e2e/bench/cpu-profile-top.ts <file.cpuprofile> [--top=40]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const { positionals, values } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '40' } } });
const profile = JSON.parse(readFileSync(positionals[0] ?? '', 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
let total = 0;
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)?.callFrame ?? { functionName: '?', url: '', lineNumber: 0 };
  const where = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/');
  const name = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  byPackage.set(packageOf(url, functionName), (byPackage.get(packageOf(url, functionName)) ?? 0) + us);
  total += us;
}

const print = (title: string, rows: Map<string, number>, top: number) => {
  process.stdout.write(`\n${title} (total ${(total / 1000).toFixed(0)} ms)\n`);
  for (const [name, us] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${name}\n`);
  }
};
print('self time by package', byPackage, 25);
print('self time by function', byFunction, Number(values.top));

/** The npm package a frame's script belongs to, or what V8 calls the frame ((garbage collector), (idle), node:...). */
function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.split('node_modules/');
  if (modules.length > 1) {
    const rest = modules[modules.length - 1] ?? '';
    const parts = rest.split('/');
    return rest.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? rest);
  }
  if (url.startsWith('node:')) return 'node:*';
  return url.replace(/^file:\/\//, '').replace(/^.*\/dist\//, 'dist/');
}
