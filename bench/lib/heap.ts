// Heap snapshots of a server process during the memory scenario (BENCH_HEAP_SNAPSHOTS), and what
// they hold: the live heap after the full collection a snapshot makes, grouped as Chrome
// DevTools' "Summary" groups it (objects by constructor, everything else by kind), and what grew
// between two of them. Open a .heapsnapshot in DevTools (Memory, Load) to follow a group's retainers.
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';

/** In the server's process: writes a snapshot of its heap to `file` (a full collection first, as V8 does for every snapshot). */
export function writeHeapSnapshot(file: string): { file: string; bytes: number } {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const written = v8.writeHeapSnapshot(file);
  return { file: written, bytes: fs.statSync(written).size };
}

export interface HeapGroup {
  name: string;
  count: number;
  bytes: number;
}

export interface HeapSummary {
  /** Live heap: the self sizes of every node of the snapshot. */
  bytes: number;
  nodes: number;
  groups: Map<string, HeapGroup>;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Reads a .heapsnapshot (in the bench's process: the file is JSON of about twice the heap). */
export function summarizeHeapSnapshot(file: string): HeapSummary {
  const snap = JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [TYPE, NAME, SIZE] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const width = fields.length;
  const groups = new Map<string, HeapGroup>();
  let bytes = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + TYPE]!]!;
    const size = snap.nodes[i + SIZE]!;
    // As DevTools: objects (and native objects) by their constructor's name, the rest by kind.
    const name = type === 'object' || type === 'native' ? snap.strings[snap.nodes[i + NAME]!]! : `(${type})`;
    const group = groups.get(name) ?? { name, count: 0, bytes: 0 };
    group.count += 1;
    group.bytes += size;
    groups.set(name, group);
    bytes += size;
  }
  return { bytes, nodes: snap.nodes.length / width, groups };
}

export interface HeapGrowth {
  name: string;
  countBefore: number;
  countAfter: number;
  bytesBefore: number;
  bytesAfter: number;
}

/** The groups whose live bytes changed most between two snapshots, largest change first. */
export function heapGrowth(before: HeapSummary, after: HeapSummary, top = 15): HeapGrowth[] {
  const names = new Set([...before.groups.keys(), ...after.groups.keys()]);
  return [...names]
    .map((name) => {
      const b = before.groups.get(name);
      const a = after.groups.get(name);
      return { name, countBefore: b?.count ?? 0, countAfter: a?.count ?? 0, bytesBefore: b?.bytes ?? 0, bytesAfter: a?.bytes ?? 0 };
    })
    .sort((x, y) => Math.abs(y.bytesAfter - y.bytesBefore) - Math.abs(x.bytesAfter - x.bytesBefore))
    .slice(0, top);
}
