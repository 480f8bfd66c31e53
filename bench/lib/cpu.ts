// Who used the CPU during a measurement: the load generator (this process), the server process,
// PostgreSQL's processes, and everything else on the machine. On a shared 2-core machine a
// figure is only worth what the "other" column says; the bench also waits for a quiet machine.
import fs from 'node:fs';

const HZ = 100; // USER_HZ on Linux

function machineBusy(): number {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: all but idle and iowait are work.
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  return user + nice + system + irq + softirq + steal;
}

function processTicks(pid: number): number {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return Number(rest[11]) + Number(rest[12]); // utime, stime (fields 14 and 15)
  } catch {
    return 0;
  }
}

/** A process and all its descendants (a `--workers` primary and its workers), by their parent pids. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  for (const queue = [root]; queue.length > 0;) {
    const pid = queue.shift()!;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * PostgreSQL's processes; with `database`, only the backends connected to it (their title names
 * it: "postgres: 15/main: postgres <database> 127.0.0.1(port) idle"), so that other work on the
 * same cluster does not count as the server's.
 */
function postgresPids(database?: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      if (database === undefined || fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').includes(` ${database} `)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

export interface CpuShare {
  /** Length of the measurement. */
  seconds: number;
  /** Cores (1.0 = one core busy for the whole time). */
  client: number;
  server: number;
  postgres: number;
  other: number;
}

interface Snapshot {
  at: number;
  busy: number;
  client: number;
  server: number;
  postgres: number;
}

/** The server: one process with its descendants (its plugin runner child), or a list of processes (a `--workers` primary and its workers). */
export type ServerPids = number | number[] | undefined;

/**
 * Starts counting; the returned function stops and gives each party's average cores. With
 * `postgresDatabase`, `postgres` is the CPU of that database's backends only (the rest of the
 * cluster's goes to `other`); a backend that ends meanwhile loses its ticks.
 */
export function cpuMeter(serverPid: ServerPids, postgresDatabase?: string): () => CpuShare {
  // One pid stands for its process tree: the server's plugin runner child works for it.
  const server = () => (serverPid === undefined ? [] : Array.isArray(serverPid) ? serverPid : processTree(serverPid));
  const take = (): Snapshot => ({
    at: performance.now(),
    busy: machineBusy(),
    client: processTicks(process.pid),
    server: server().reduce((sum, pid) => sum + processTicks(pid), 0),
    postgres: postgresPids(postgresDatabase).reduce((sum, pid) => sum + processTicks(pid), 0),
  });
  const start = take();
  return () => {
    const end = take();
    const ticks = ((end.at - start.at) / 1000) * HZ;
    const share = (n: number) => Math.max(0, n / ticks);
    const client = end.client - start.client;
    const server = end.server - start.server;
    const pgTicks = end.postgres - start.postgres;
    return {
      seconds: (end.at - start.at) / 1000,
      client: share(client),
      server: share(server),
      postgres: share(pgTicks),
      other: share(end.busy - start.busy - client - server - pgTicks),
    };
  };
}

/**
 * Waits (up to `maxSeconds`) until the rest of the machine uses less than `cores`, sampling
 * one second at a time. Returns the last sample's load from others.
 */
export async function waitForQuiet(serverPid: ServerPids, cores: number, maxSeconds: number, countPostgres: boolean): Promise<number> {
  const deadline = performance.now() + maxSeconds * 1000;
  let said = false;
  for (;;) {
    const stop = cpuMeter(serverPid);
    await new Promise((r) => setTimeout(r, 1000));
    const s = stop();
    const others = s.other + (countPostgres ? s.postgres : 0);
    if (others < cores || performance.now() > deadline) {
      if (said) console.log(others < cores ? '  (machine quiet again)' : `  (still ${others.toFixed(2)} cores busy elsewhere; measuring anyway)`);
      return others;
    }
    if (!said) {
      console.log(`  (waiting for other work to finish: ${others.toFixed(2)} cores busy elsewhere)`);
      said = true;
    }
  }
}

/**
 * Waits until the server (and PostgreSQL) stop working on requests the load generator has
 * already given up on: a slow scenario leaves a queue behind that would otherwise be measured
 * as part of the next one. Returns the seconds waited.
 */
export async function waitForIdle(serverPid: ServerPids, maxSeconds: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const stop = cpuMeter(serverPid);
    await new Promise((r) => setTimeout(r, 250));
    const s = stop();
    const waited = (performance.now() - started) / 1000;
    if (s.server + s.postgres < 0.1 || waited > maxSeconds) return waited;
  }
}
