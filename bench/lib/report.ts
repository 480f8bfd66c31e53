// The results table: printed, and written to bench/results/ as JSON and Markdown.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CpuShare } from './cpu.ts';
import type { LoadResult } from './load.ts';

export interface Row extends LoadResult {
  scenario: string;
  engine: string;
  request: string;
  /** okPerSecond / the baseline's okPerSecond. */
  ratio: number;
  /** Average cores used during the measurement; `server` includes PostgreSQL on that engine. */
  cpu: CpuShare;
  /** Server CPU time per 2xx response, in µs (with PostgreSQL's processes on that engine). */
  serverMicrosPerRequest: number;
  /** The server's CPU profile was being taken (slower). */
  profiled: boolean;
}

export interface Report {
  date: string;
  commit: string | undefined;
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string; platform: string };
  settings: { duration: number; warmup: number; connections: number; commands: number; sqliteAnalyze: boolean };
  seeding: Record<string, { commands: number; totalCommands: number; seconds: { base: number; fixtures: number; analyze: number } }>;
  rows: Row[];
}

export function machine(): Report['machine'] {
  const cpus = os.cpus();
  return {
    cpus: os.availableParallelism?.() ?? cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

const f0 = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');

const f1 = (n: number) => n.toFixed(1);
const HEAD = ['scenario', 'engine', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'ratio', 'server µs/req', 'CPU client', 'CPU server', 'CPU other'];
const cells = (r: Row) => [
  r.scenario + (r.profiled ? ' (profiled)' : ''),
  r.engine,
  f0(r.okPerSecond),
  f2(r.p50),
  f2(r.p99),
  String(r.non2xx + r.errors + r.timeouts),
  f2(r.ratio),
  f0(r.serverMicrosPerRequest),
  f1(r.cpu.client),
  f1(r.engine === 'postgres' ? r.cpu.server + r.cpu.postgres : r.cpu.server),
  f1(r.engine === 'postgres' ? r.cpu.other : r.cpu.other + r.cpu.postgres),
];

export function textTable(rows: Row[]): string {
  const body = rows.map(cells);
  const widths = HEAD.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => (i < 2 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  return [line(HEAD), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

export function markdownTable(rows: Row[]): string {
  const align = HEAD.map((_, i) => (i < 2 ? ':--' : '--:'));
  return [`| ${HEAD.join(' | ')} |`, `| ${align.join(' | ')} |`, ...rows.map((r) => `| ${cells(r).join(' | ')} |`)].join('\n');
}

export function markdown(report: Report): string {
  const m = report.machine;
  const s = report.settings;
  const seeding = Object.entries(report.seeding)
    .map(([engine, x]) => `- ${engine}: ${x.commands.toLocaleString('en-US')} commands in ${x.seconds.base.toFixed(1)} s, write fixtures in ${x.seconds.fixtures.toFixed(1)} s${x.seconds.analyze > 0.05 ? `, ${engine === 'postgres' ? 'VACUUM ANALYZE' : 'ANALYZE'} ${x.seconds.analyze.toFixed(1)} s` : ''} (${x.totalCommands.toLocaleString('en-US')} rows before measuring)`)
    .join('\n');
  const failures = report.rows
    .filter((r) => r.non2xx + r.errors + r.timeouts > 0)
    .map((r) => `- ${r.scenario} on ${r.engine}: status codes ${JSON.stringify(r.statusCodes)}, ${r.errors} errors, ${r.timeouts} timeouts`)
    .join('\n');
  return [
    '# Benchmark results',
    '',
    `${report.date}${report.commit ? `, commit ${report.commit.slice(0, 12)}` : ''}. ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGb} GB, Node ${m.node}, ${m.platform}.`,
    `${s.connections} connections, ${s.duration} s per scenario after ${s.warmup} s of warm-up; autocannon in the bench process, each server in its own process, over loopback.`,
    ...(s.sqliteAnalyze ? ['**BENCH_SQLITE_ANALYZE=1**: the SQLite database was ANALYZEd after seeding, which the server itself never does.'] : []),
    'req/s counts 2xx responses only; latencies are of 2xx responses; ratio = req/s ÷ the bare-Fastify baseline measured just before that engine\'s scenarios.',
    'server µs/req: CPU time the server (and PostgreSQL) spent per 2xx response. CPU columns: average cores used by the load generator, by the server (with PostgreSQL\'s processes on that engine) and by everything else on the machine during the measurement.',
    '',
    markdownTable(report.rows),
    '',
    '## Requests',
    '',
    ...report.rows.filter((r, i, all) => all.findIndex((o) => o.scenario === r.scenario) === i).map((r) => `- **${r.scenario}**: \`${r.request}\``),
    '',
    '## Seeding',
    '',
    seeding,
    ...(failures ? ['', '## Non-2xx responses', '', failures] : []),
    '',
  ].join('\n');
}

export function write(dir: string, report: Report): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'latest.json'), JSON.stringify(report, null, 2) + '\n');
  fs.writeFileSync(path.join(dir, 'latest.md'), markdown(report));
}
