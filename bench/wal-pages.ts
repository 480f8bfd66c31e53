// Pages written per write, by B-tree, on SQLite (issue "Speed, second pass", target 4;
// docs/performance.md, "Pages per write"). A database seeded as the bench seeds it (100k commands
// by default) is copied; on a fresh copy for each path, the statements Charta runs for a create,
// a patch and a commit (the bare-sqlite twin's, word for word: bench/capture-sql.ts) run a
// thousand times, one write per transaction and then 25 per transaction (the group commit's batch
// at 50 connections), with the log's automatic checkpoints off; the log then holds every page
// each transaction wrote, and SQLite's dbstat table names the B-tree each page belongs to.
// Usage: node --import tsx bench/wal-pages.ts [--commands N] [--ddl "SQL run on each copy first"]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import type BetterSqlite3 from 'better-sqlite3';
import { Child } from './lib/child.ts';
import type { SetupArgs, SetupResult } from './lib/charta-server.ts';
import { seedShape } from './lib/seed.ts';
import { COMMAND_AND_NOTE, INSERT_AUDIT, INSERT_COMMAND, openLikeCharta, UPDATE_COMMIT, UPDATE_DATA } from './lib/bare-sqlite.ts';
import { micros, newPlan, writeAudit, type TwinActor } from './lib/bare-twin.ts';

const Sqlite = createRequire(path.resolve(import.meta.dirname, '../packages/server/package.json'))('better-sqlite3') as typeof BetterSqlite3;
const { values: args } = parseArgs({
  options: {
    commands: { type: 'string', default: '100000' },
    ddl: { type: 'string' },
    writes: { type: 'string', default: '1000' },
    warm: { type: 'string', default: '5000' },
  },
});
const commands = Number(args.commands);
const writes = Number(args.writes);
// The seed builds each index after the bulk load, its leaves full: the first inserts into one split
// nearly every leaf they land on, as a database grown by its own inserts does not. Creates run
// first (25 a transaction, not counted) until the leaves the measured writes land on have split.
const warm = Number(args.warm);
const BATCHES = [1, 25];
const PAGE = 4096;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-wal-pages-'));
const seeded = path.join(dir, 'seeded.db');
const child = new Child(path.join(import.meta.dirname, 'lib/charta-server.ts'));
let f: SetupResult;
try {
  const plan: SetupArgs['plan'] = { ...seedShape(commands), commands, patchFixtures: writes, commitFixtures: writes };
  f = await child.call<SetupResult>('setup', { engine: 'sqlite', plan } satisfies SetupArgs);
  // The server is idle: its log copied back and emptied, then the file copied.
  const db = new Sqlite(f.sqliteFile!);
  db.pragma('busy_timeout = 5000');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  fs.copyFileSync(f.sqliteFile!, seeded);
} finally {
  await child.stop();
}

type Kind = 'create' | 'patch' | 'commit';
/** B-tree name → pages written, summed over the run; and the transactions that wrote to it. */
interface Tally {
  pages: Map<string, number>;
  touched: Map<string, number>;
  transactions: number;
}

function open(file: string): BetterSqlite3.Database {
  const db = openLikeCharta(file, 'normal');
  db.pragma('wal_autocheckpoint = 0');
  return db;
}

/** The page numbers of the log's frames, transaction by transaction (a commit frame ends one). */
function logTransactions(file: string): number[][] {
  const wal = fs.readFileSync(`${file}-wal`);
  const transactions: number[][] = [];
  let current: number[] = [];
  for (let at = 32; at + 24 + PAGE <= wal.length; at += 24 + PAGE) {
    current.push(wal.readUInt32BE(at));
    if (wal.readUInt32BE(at + 4) !== 0) {
      transactions.push(current);
      current = [];
    }
  }
  return transactions;
}

function measure(kind: Kind, batch: number): Tally {
  const file = path.join(dir, `${kind}-${batch}.db`);
  fs.copyFileSync(seeded, file);
  const db = open(file);
  if (args.ddl !== undefined) db.exec(args.ddl);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const staff = db.prepare('select staff_key from oauth_clients limit 1').get() as { staff_key: string };
  const who: TwinActor = { staffKey: staff.staff_key, credential: 'client:bench' };
  const s = {
    note: db.prepare('select * from "notes" where "uuid" = ?'),
    commandAndNote: db.prepare(COMMAND_AND_NOTE),
    insertCommand: db.prepare(INSERT_COMMAND),
    updateData: db.prepare(UPDATE_DATA),
    updateCommit: db.prepare(UPDATE_COMMIT),
    insertAudit: db.prepare(INSERT_AUDIT),
  };
  const change = (uuid: string, action: 'updated' | 'committed', n: number) => {
    const { note__note_type: _t, note__locked: _l, note__deleted: _d, ...before } = s.commandAndNote.get(uuid) as Record<string, unknown>;
    const now = micros();
    const editedBy = JSON.stringify([who.staffKey]);
    const values = JSON.stringify({ narrative: `Revised plan ${n}: follow up in two weeks; recheck blood pressure and renal function.` });
    const after =
      action === 'updated'
        ? { ...before, data: values, edited_by: editedBy, updated_at: now }
        : { ...before, state: 'committed', committed_by: who.staffKey, edited_by: editedBy, updated_at: now };
    if (action === 'updated') s.updateData.run(values, editedBy, now, uuid);
    else s.updateCommit.run('committed', who.staffKey, editedBy, now, uuid);
    s.insertAudit.run(writeAudit(who, `command.${action}`, uuid, before, after, before));
  };
  const create = (n: number) => {
    const note = s.note.get(f.writableNotes[n % f.writableNotes.length]) as { uuid: string; patient_key: string };
    const created = newPlan(who, note, { narrative: 'Follow up in two weeks; recheck blood pressure and renal function.' });
    s.insertCommand.run(...Object.values(created));
    s.insertAudit.run(writeAudit(who, 'command.created', created.uuid, null, created, created));
  };
  const write = (n: number) => {
    if (kind === 'create') create(n);
    else change((kind === 'patch' ? f.patchUuids : f.commitUuids)[n]!, kind === 'patch' ? 'updated' : 'committed', n);
  };
  const run = (count: number, size: number, one: (n: number) => void) => {
    for (let n = 0; n < count; n += size) {
      db.exec('BEGIN IMMEDIATE');
      for (let i = n; i < Math.min(n + size, count); i++) {
        db.exec(`SAVEPOINT w${i - n}`);
        one(i);
      }
      db.exec('COMMIT');
    }
  };
  run(warm, 25, (n) => create(writes + n));
  db.pragma('wal_checkpoint(TRUNCATE)');
  run(writes, batch, write);
  const transactions = logTransactions(file);
  const names = new Map((db.prepare('select pageno, name from dbstat').all() as Array<{ pageno: number; name: string }>).map((r) => [r.pageno, r.name]));
  db.close();
  fs.rmSync(file);
  fs.rmSync(`${file}-wal`, { force: true });
  fs.rmSync(`${file}-shm`, { force: true });
  const tally: Tally = { pages: new Map(), touched: new Map(), transactions: transactions.length };
  for (const pages of transactions) {
    const here = new Set<string>();
    for (const page of new Set(pages)) {
      const name = names.get(page) ?? (page === 1 ? 'the file header' : 'free pages');
      tally.pages.set(name, (tally.pages.get(name) ?? 0) + 1);
      here.add(name);
    }
    for (const name of here) tally.touched.set(name, (tally.touched.get(name) ?? 0) + 1);
  }
  return tally;
}

const columns: Array<{ label: string; tally: Tally }> = [];
for (const kind of ['create', 'patch', 'commit'] as const) {
  for (const batch of BATCHES) columns.push({ label: `${kind}, ${batch} a transaction`, tally: measure(kind, batch) });
}
fs.rmSync(dir, { recursive: true, force: true });

const names = [...new Set(columns.flatMap((c) => [...c.tally.pages.keys()]))].sort();
const cell = (n: number) => (n === 0 ? '–' : (n / writes).toFixed(2));
console.log(
  `Pages written to the log per write, by B-tree (${commands.toLocaleString('en-US')} commands seeded, ${warm} creates first, then ${writes} writes each${args.ddl ? `; first: ${args.ddl}` : ''}):\n`,
);
console.log(`| B-tree | ${columns.map((c) => c.label).join(' | ')} |`);
console.log(`| :-- | ${columns.map(() => '--:').join(' | ')} |`);
for (const name of names) console.log(`| ${name} | ${columns.map((c) => cell(c.tally.pages.get(name) ?? 0)).join(' | ')} |`);
const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
console.log(`| **pages per write** | ${columns.map((c) => `**${cell(sum(c.tally.pages))}**`).join(' | ')} |`);
console.log(`| KiB of log per write | ${columns.map((c) => ((sum(c.tally.pages) * (PAGE + 24)) / 1024 / writes).toFixed(1)).join(' | ')} |`);
console.log(`| B-trees written per transaction | ${columns.map((c) => (sum(c.tally.touched) / c.tally.transactions).toFixed(1)).join(' | ')} |`);
