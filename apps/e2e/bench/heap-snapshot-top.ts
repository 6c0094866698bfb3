/**
 * What holds a heap: self size per constructor, and the objects with the largest retained size (dominator tree,
 * Cooper-Harvey-Kennedy), from a V8 heap snapshot (`--heapsnapshot-signal`, `v8.writeHeapSnapshot`):
 * node apps/e2e/bench/run.mjs apps/e2e/bench/heap-snapshot-top.ts <file.heapsnapshot> [--top=25]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const { positionals, values } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
const top = Number(values.top);
const heap = JSON.parse(readFileSync(positionals[0] ?? '', 'utf8')) as Snapshot;
const { meta } = heap.snapshot;
const NF = meta.node_fields.length;
const EF = meta.edge_fields.length;
const fieldOf = (fields: string[], name: string): number => {
  const index = fields.indexOf(name);
  if (index < 0) throw new Error(`the heap snapshot has no ${name} field`);
  return index;
};
const [typeField, nameField, selfField, edgeCountField] = [fieldOf(meta.node_fields, 'type'), fieldOf(meta.node_fields, 'name'), fieldOf(meta.node_fields, 'self_size'), fieldOf(meta.node_fields, 'edge_count')];
const [edgeTypeField, edgeToField] = [fieldOf(meta.edge_fields, 'type'), fieldOf(meta.edge_fields, 'to_node')];
const nodeTypes = meta.node_types[0];
const weakEdge = meta.edge_types[0].indexOf('weak');
const count = heap.nodes.length / NF;

const selfSize = new Float64Array(count);
const firstEdge = new Uint32Array(count + 1);
for (let i = 0, e = 0; i < count; i++) {
  selfSize[i] = heap.nodes[i * NF + selfField] ?? 0;
  firstEdge[i] = e;
  e += (heap.nodes[i * NF + edgeCountField] ?? 0) * EF;
  firstEdge[i + 1] = e;
}
const label = (i: number) => {
  const type = nodeTypes[heap.nodes[i * NF + typeField] ?? 0] ?? '?';
  const name = heap.strings[heap.nodes[i * NF + nameField] ?? 0] ?? '';
  return type === 'object' || type === 'closure' ? name || `(${type})` : `(${type})`;
};
const targets = (i: number, visit: (to: number) => void) => {
  for (let e = firstEdge[i] ?? 0; e < (firstEdge[i + 1] ?? 0); e += EF) {
    if (heap.edges[e + edgeTypeField] === weakEdge) continue;
    visit((heap.edges[e + edgeToField] ?? 0) / NF);
  }
};

// Reverse postorder from the root (node 0), iteratively.
const order = new Int32Array(count).fill(-1);
const postorder: number[] = [];
{
  const stack: number[] = [0];
  const next = new Uint32Array(count);
  const seen = new Uint8Array(count);
  seen[0] = 1;
  for (let i = 0; i < count; i++) next[i] = firstEdge[i] ?? 0;
  while (stack.length) {
    const i = stack[stack.length - 1] ?? 0;
    let pushed = false;
    while ((next[i] ?? 0) < (firstEdge[i + 1] ?? 0)) {
      const e = next[i] ?? 0;
      next[i] = e + EF;
      if (heap.edges[e + edgeTypeField] === weakEdge) continue;
      const to = (heap.edges[e + edgeToField] ?? 0) / NF;
      if (!seen[to]) {
        seen[to] = 1;
        stack.push(to);
        pushed = true;
        break;
      }
    }
    if (!pushed) {
      stack.pop();
      order[i] = postorder.length;
      postorder.push(i);
    }
  }
}
const predecessors: number[][] = Array.from({ length: count }, () => []);
for (const i of postorder) targets(i, (to) => predecessors[to]?.push(i));

const idom = new Int32Array(count).fill(-1);
idom[0] = 0;
const intersect = (a: number, b: number) => {
  while (a !== b) {
    while ((order[a] ?? 0) < (order[b] ?? 0)) a = idom[a] ?? 0;
    while ((order[b] ?? 0) < (order[a] ?? 0)) b = idom[b] ?? 0;
  }
  return a;
};
for (let changed = true; changed; ) {
  changed = false;
  for (let k = postorder.length - 2; k >= 0; k--) {
    const i = postorder[k] ?? 0;
    let dom = -1;
    for (const p of predecessors[i] ?? []) if ((idom[p] ?? -1) !== -1) dom = dom === -1 ? p : intersect(p, dom);
    if (dom !== -1 && idom[i] !== dom) {
      idom[i] = dom;
      changed = true;
    }
  }
}
const retained = Float64Array.from(selfSize);
for (const i of postorder) if (i !== 0 && (idom[i] ?? -1) >= 0) retained[idom[i] ?? 0] = (retained[idom[i] ?? 0] ?? 0) + (retained[i] ?? 0);

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1).padStart(7)} MB`;
const bySelf = new Map<string, { size: number; count: number }>();
let total = 0;
for (let i = 0; i < count; i++) {
  const entry = bySelf.get(label(i)) ?? { size: 0, count: 0 };
  entry.size += selfSize[i] ?? 0;
  entry.count += 1;
  bySelf.set(label(i), entry);
  total += selfSize[i] ?? 0;
}
process.stdout.write(`heap ${mb(total)} in ${count} objects\n\nself size by constructor\n`);
for (const [name, { size, count: n }] of [...bySelf].sort((a, b) => b[1].size - a[1].size).slice(0, top)) {
  process.stdout.write(`${mb(size)}  ${String(n).padStart(8)}  ${name}\n`);
}
process.stdout.write('\nlargest retained sizes (objects other than the roots)\n');
const biggest = [...postorder].filter((i) => i !== 0 && !label(i).startsWith('(GC roots') && label(i) !== '(synthetic)');
biggest.sort((a, b) => (retained[b] ?? 0) - (retained[a] ?? 0));
for (const i of biggest.slice(0, top)) {
  process.stdout.write(`${mb(retained[i] ?? 0)}  ${label(i)} ${heap.strings[heap.nodes[i * NF + nameField] ?? 0]?.slice(0, 80) ?? ''}\n`);
}
