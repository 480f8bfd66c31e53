// The `backup` scenario (docs/performance.md, "Backup"; docs/operations.md, "Backup and
// restore"), SQLite only: `charta-server backup` as an operator runs it, a process of its own on
// the seeded database of the running instance.
// - Throughput: backups with no load on the server (BENCH_BACKUP_QUIET of them), each's copy rate
//   (MiB/s of the copy phase, from its JSON line), its check (PRAGMA quick_check) and the whole
//   process's time (start, copy, check, fsync).
// - Latency: GET a command (the `get` scenario's requests) in windows of BENCH_DURATION seconds,
//   alternately without a backup and with backups running back to back for the whole window, at
//   BENCH_CONNECTIONS and at 1 connection, BENCH_BACKUP_ROUNDS times over (odd rounds without
//   first, even rounds during first); figures are medians over the rounds, and each "during" is
//   divided by the "without" of its own round (the machine's speed drifts within minutes). Each
//   window waits first for a quiet machine (BENCH_QUIET_WAIT). The backups' processes count as
//   CPU other.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type autocannon from 'autocannon';
import { cpuMeter, waitForIdle, waitForQuiet, type CpuShare } from './cpu.ts';
import { f0, f2, median } from './format.ts';
import { measure, type LoadResult } from './load.ts';
import type { BenchOptions } from './options.ts';

export const BACKUP_SCENARIO = 'backup';

const BIN = path.resolve(import.meta.dirname, '../../packages/server/bin/charta-server.js');

/** One `charta-server backup`: what its JSON line said, and how long its process ran. */
export interface BackupRun {
  bytes: number;
  copySeconds: number;
  checkSeconds: number;
  syncSeconds: number;
  mibPerSecond: number;
  /** The process, from spawn to exit. */
  wallSeconds: number;
  /** Taken while the GET load ran. */
  underLoad: boolean;
}

/** One window of GET load. */
export interface BackupLatencyRow extends LoadResult {
  connections: number;
  during: boolean;
  round: number;
  /** Backups that ran in the window, and the share of the window a backup process was running. */
  backups: number;
  coverage: number;
  cpu: CpuShare;
}

export interface BackupReport {
  engine: 'sqlite';
  /** The database's size: the file and its WAL, bytes. */
  databaseBytes: number;
  runs: BackupRun[];
  latency: BackupLatencyRow[];
  rounds: number;
}

export interface BackupTarget {
  url: string;
  token: string;
  databaseUrl: string;
  sqliteFile: string;
  /** The server process, for its CPU. */
  pid: number | undefined;
  sampleUuids: string[];
}

/** `charta-server backup --to <file>` on the database to its exit; the file is removed after. */
async function backupOnce(databaseUrl: string, dir: string, underLoad: boolean): Promise<{ run: BackupRun; started: number; ended: number }> {
  const to = path.join(dir, `backup-${process.pid}-${Math.random().toString(36).slice(2)}.db`);
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CHARTA_')) env[k] = v;
  env.CHARTA_DATABASE_URL = databaseUrl;
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'backup', '--to', to], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  const ended = performance.now();
  fs.rmSync(to, { force: true });
  if (code !== 0) throw new Error(`charta-server backup exited ${code}: ${stderr}`);
  const said = JSON.parse(stdout) as { bytes: number; seconds: { copy: number; check: number; sync: number }; mibPerSecond: number };
  return {
    run: {
      bytes: said.bytes,
      copySeconds: said.seconds.copy,
      checkSeconds: said.seconds.check,
      syncSeconds: said.seconds.sync,
      mibPerSecond: said.mibPerSecond,
      wallSeconds: (ended - started) / 1000,
      underLoad,
    },
    started,
    ended,
  };
}

export async function backupScenario(opts: BenchOptions, target: BackupTarget): Promise<BackupReport> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-bench-backup-'));
  const runs: BackupRun[] = [];
  const latency: BackupLatencyRow[] = [];
  const databaseBytes = [target.sqliteFile, `${target.sqliteFile}-wal`].reduce((sum, f) => sum + (fs.existsSync(f) ? fs.statSync(f).size : 0), 0);
  try {
    if (opts.quietWait > 0) await waitForQuiet(target.pid, 0.25, opts.quietWait, false);
    for (let i = 0; i < opts.backupQuiet; i++) {
      const { run } = await backupOnce(target.databaseUrl, dir, false);
      runs.push(run);
      console.log(
        `sqlite    backup (no load) ${i + 1}: ${(run.bytes / 2 ** 20).toFixed(0)} MiB copied in ${run.copySeconds.toFixed(2)} s (${run.mibPerSecond.toFixed(0)} MiB/s), ` +
          `checked in ${run.checkSeconds.toFixed(2)} s, synced in ${run.syncSeconds.toFixed(2)} s, process ${run.wallSeconds.toFixed(2)} s`,
      );
    }
    const uuids = target.sampleUuids.slice(0, 250);
    const requests: autocannon.Request[] = uuids.map((u) => ({ method: 'GET', path: `/core/api/v1/commands/${u}` }));
    const spec = { url: target.url, headers: { authorization: `Bearer ${target.token}` }, requests };
    if (opts.warmup > 0) await measure({ ...spec, connections: opts.connections, duration: opts.warmup });
    for (let round = 1; round <= opts.backupRounds; round++) {
      for (const connections of [opts.connections, 1]) {
        // Odd rounds measure without a backup first, even rounds during first: neither always goes second.
        for (const during of round % 2 === 1 ? [false, true] : [true, false]) {
          await waitForIdle(target.pid, 30);
          if (opts.quietWait > 0) await waitForQuiet(target.pid, 0.25, opts.quietWait, false);
          const stop = cpuMeter(target.pid);
          const windowStart = performance.now();
          let measuring = true;
          const spans: Array<[number, number]> = [];
          // Backups back to back for as long as the load runs.
          const backups = (async () => {
            while (during && measuring) {
              const { run, started, ended } = await backupOnce(target.databaseUrl, dir, true);
              runs.push(run);
              spans.push([started, ended]);
            }
          })();
          const result = await measure({ ...spec, connections, duration: opts.duration });
          measuring = false;
          const windowEnd = performance.now();
          const cpu = stop();
          await backups;
          const covered = spans.reduce((sum, [a, b]) => sum + Math.max(0, Math.min(b, windowEnd) - Math.max(a, windowStart)), 0);
          const row: BackupLatencyRow = {
            ...result,
            connections,
            during,
            round,
            backups: spans.length,
            coverage: covered / (windowEnd - windowStart),
            cpu,
          };
          latency.push(row);
          console.log(
            `sqlite    backup round ${round}, ${String(connections).padStart(2)} conn, ${during ? `during ${spans.length} backups (${Math.round(row.coverage * 100)} % of the window)` : 'without a backup'}: ` +
              `${Math.round(result.okPerSecond).toLocaleString('en-US')} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms  ` +
              `cpu client ${cpu.client.toFixed(2)} server ${cpu.server.toFixed(2)} other ${cpu.other.toFixed(2)}${result.non2xx + result.errors + result.timeouts ? `  non-2xx ${result.non2xx} errors ${result.errors}` : ''}`,
          );
        }
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { engine: 'sqlite', databaseBytes, runs, latency, rounds: opts.backupRounds };
}

/** The figures of the tables: the backups' throughput, and each connection count's GET without and during (medians over the rounds). */
export function backupSummary(r: BackupReport) {
  const copies = (underLoad: boolean) => {
    const runs = r.runs.filter((x) => x.underLoad === underLoad);
    return {
      underLoad,
      backups: runs.length,
      mib: median(runs.map((x) => x.bytes / 2 ** 20)),
      mibPerSecond: median(runs.map((x) => x.mibPerSecond)),
      slowest: Math.min(...runs.map((x) => x.mibPerSecond)),
      fastest: Math.max(...runs.map((x) => x.mibPerSecond)),
      checkSeconds: median(runs.map((x) => x.checkSeconds)),
      syncSeconds: median(runs.map((x) => x.syncSeconds)),
      wallSeconds: median(runs.map((x) => x.wallSeconds)),
    };
  };
  const latency = [...new Set(r.latency.map((x) => x.connections))].map((connections) => {
    const of = (during: boolean) => r.latency.filter((x) => x.connections === connections && x.during === during);
    const without = of(false);
    const during = of(true);
    const ratio = (pick: (x: BackupLatencyRow) => number) =>
      median(during.map((d) => pick(d) / pick(without.find((w) => w.round === d.round) ?? ({} as BackupLatencyRow))));
    const side = (rows: BackupLatencyRow[]) => ({
      okPerSecond: median(rows.map((x) => x.okPerSecond)),
      p50: median(rows.map((x) => x.p50)),
      p99: median(rows.map((x) => x.p99)),
      cpuServer: median(rows.map((x) => x.cpu.server)),
      cpuOther: median(rows.map((x) => x.cpu.other)),
      coverage: median(rows.map((x) => x.coverage)),
      non2xx: rows.reduce((n, x) => n + x.non2xx + x.errors + x.timeouts, 0),
    });
    return {
      connections,
      without: side(without),
      during: side(during),
      ratios: { okPerSecond: ratio((x) => x.okPerSecond), p50: ratio((x) => x.p50), p99: ratio((x) => x.p99) },
    };
  });
  return { throughput: [copies(false), copies(true)].filter((c) => c.backups > 0), latency };
}

const THROUGHPUT_HEAD = ['backups', 'taken', 'file MiB', 'copy MiB/s (median)', 'slowest–fastest', 'check s', 'sync s', 'process s'];
const LATENCY_HEAD = ['GET a command', 'conn', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'CPU server', 'CPU other', 'during ÷ without: req/s', 'p50', 'p99'];

function rowsOf(r: BackupReport): { throughput: string[][]; latency: string[][] } {
  const s = backupSummary(r);
  return {
    throughput: s.throughput.map((c) => [
      String(c.backups),
      c.underLoad ? 'during the GET load' : 'no load',
      f0(c.mib),
      f0(c.mibPerSecond),
      `${f0(c.slowest)}–${f0(c.fastest)}`,
      f2(c.checkSeconds),
      f2(c.syncSeconds),
      f2(c.wallSeconds),
    ]),
    latency: s.latency.flatMap((l) => {
      const cells = (label: string, x: typeof l.without) => [
        label,
        String(l.connections),
        f0(x.okPerSecond),
        f2(x.p50),
        f2(x.p99),
        String(x.non2xx),
        f2(x.cpuServer),
        f2(x.cpuOther),
      ];
      return [
        [...cells('without a backup', l.without), '', '', ''],
        [
          ...cells(`during backups (${Math.round(l.during.coverage * 100)} % of the window)`, l.during),
          f2(l.ratios.okPerSecond),
          f2(l.ratios.p50),
          f2(l.ratios.p99),
        ],
      ];
    }),
  };
}

const text = (head: string[], rows: string[][], textColumns: number) => {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((b) => b[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => (i < textColumns ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
};
const md = (head: string[], rows: string[][], textColumns: number) =>
  [`| ${head.join(' | ')} |`, `| ${head.map((_, i) => (i < textColumns ? ':--' : '--:')).join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join(
    '\n',
  );

export function backupTextTables(r: BackupReport): string {
  const { throughput, latency } = rowsOf(r);
  return `${text(THROUGHPUT_HEAD, throughput, 2)}\n\n${text(LATENCY_HEAD, latency, 1)}`;
}

export function backupMarkdown(r: BackupReport | undefined, settings: { duration: number; connections: number }): string[] {
  if (r === undefined) return [];
  const { throughput, latency } = rowsOf(r);
  return [
    '## Backup',
    '',
    `\`charta-server backup\` (a process of its own: SQLite's online backup API on a read-only connection, inside one read transaction) on the seeded SQLite database of the running instance (${f0(r.databaseBytes / 2 ** 20)} MiB with its WAL). ` +
      "copy MiB/s: the copy phase (the JSON line's `mibPerSecond`); check s: PRAGMA quick_check of the copy; sync s: its fsync; process s: spawn to exit (Node's start, copy, check, sync, link).",
    '',
    md(THROUGHPUT_HEAD, throughput, 2),
    '',
    `GET a command (250 seeded uuids in turn) for ${settings.duration} s per window, alternately without a backup and with backups back to back for the whole window, at ${settings.connections} connections and at 1, ${r.rounds} rounds; ` +
      "medians over the rounds; each ratio is a window ÷ the window without a backup of its own round. The backups' processes count as CPU other.",
    '',
    md(LATENCY_HEAD, latency, 1),
    '',
  ];
}
