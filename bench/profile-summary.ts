// Summarises a .cpuprofile (from BENCH_PROFILE or `node --cpu-prof`): the functions with the most
// self time, and the self time grouped by package or source folder, as shares of the time the
// event loop was busy (idle samples are left out).
// Usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [top=25]
import fs from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topText = '25'] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const sampled = [...self.values()].reduce((a, b) => a + b, 0);
// The percentages are of the busy time: the samples of an idle event loop (waiting for the
// network or PostgreSQL) are counted apart, or they would dilute every other frame.
const idle = [...self].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((a, [, us]) => a + us, 0);
const total = sampled - idle;

function where(url: string): string {
  if (url === '') return '(native/V8)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url;
  const src = url.indexOf('/src/');
  return src >= 0
    ? url
        .slice(src + 1)
        .split('/')
        .slice(0, -1)
        .join('/') || url
    : url.replace(/^file:\/\//, '');
}

const fns = new Map<string, number>();
const groups = new Map<string, number>();
for (const [id, us] of self) {
  const n = byId.get(id)!;
  const f = n.callFrame;
  if (f.functionName === '(idle)') continue;
  const name = `${f.functionName || '(anonymous)'}  ${f.url.replace(/^file:\/\//, '').replace(/.*node_modules\//, '')}:${f.lineNumber + 1}`;
  fns.set(name, (fns.get(name) ?? 0) + us);
  const g = where(f.url);
  groups.set(g, (groups.get(g) ?? 0) + us);
}
const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
const top = Number(topText);
console.log(
  `${(sampled / 1e6).toFixed(2)} s sampled, ${(total / 1e6).toFixed(2)} s busy (${(idle / 1e6).toFixed(2)} s idle); shares of the busy time\n\nself time by package / folder:`,
);
for (const [g, us] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${g}`);
console.log('\nself time by function:');
for (const [name, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${name}`);
