// The scale scenario (issue 12, "Scale"; docs/performance.md, "Scale: 100k to 10M"): on each
// engine, for each size in BENCH_SCALES, a fresh database bulk-seeded with that many commands
// (lib/seed.ts: patients and notes grow with them, 400 commands a patient, 100 a note), then GET
// and every list filter the bench knows, and the count alone, each measured as the other
// Commands scenarios are. What matters is how the server's CPU time per request grows from the
// smallest size to the largest (issue 12: at most 1.3× at 10M), next to the database's size.
import { shuffle } from './random.ts';
import { isoMicros } from '../../packages/server/src/lib/time.ts';
import type { Engine } from '../../packages/server/src/storage/db.ts';
import type { SetupArgs, SetupResult } from './charta-server.ts';
import type { BenchOptions } from './options.ts';
import { seedShape, type SeedSeconds } from './seed.ts';

export const SCALE_SCENARIO = 'scale';
/** Issue 12: server µs per request at 10M ≤ this × that at 100k, for GET, each list filter and the count. */
export const SCALE_TARGET = 1.3;
/** The columns of a request measured at several sizes in rounds (the scale and audit tables), between its name columns and its own. */
export const GROWTH_HEAD = ['req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'server µs/req', 'growth', 'growth per round', `target (≤ ${SCALE_TARGET})`];

const API = '/core/api/v1/commands';

/** One kind of request measured at every size: `paths` are cycled through by every connection. */
export interface ScaleRequest {
  name: string;
  /** What one request looks like, for the docs. */
  request: string;
  paths: string[];
}

export interface ScaleSeed {
  engine: Engine;
  commands: number;
  patients: number;
  notes: number;
  seconds: SeedSeconds & { ready: number };
  /** SQLite: the file and its WAL; PostgreSQL: pg_database_size. */
  bytes: number;
}

/** The requests, built from what the seed answered: 250 of each kind of key, as the other Commands scenarios use. */
export function scaleRequests(f: SetupResult): ScaleRequest[] {
  const some = <T>(items: T[]) => shuffle(items).slice(0, 250);
  const patients = some(f.patientKeys);
  const notes = some(f.writableNotes);
  const uuids = some(f.sampleUuids);
  const after = encodeURIComponent(isoMicros(f.createdAfter));
  const each = (keys: string[], path: (k: string) => string) => keys.map(path);
  return [
    { name: 'get', request: `GET ${API}/{uuid}`, paths: each(uuids, (u) => `${API}/${u}`) },
    {
      name: 'list',
      request: `GET ${API}?patient_key={key}&state=committed&limit=20 (a patient's committed commands)`,
      paths: each(patients, (k) => `${API}?patient_key=${k}&state=committed&limit=20`),
    },
    {
      name: 'list-created',
      request: `GET ${API}?patient_key={key}&created_at__gte={timestamp}&limit=20 (a patient's newest quarter)`,
      paths: each(patients, (k) => `${API}?patient_key=${k}&created_at__gte=${after}&limit=20`),
    },
    {
      name: 'list-kind',
      request: `GET ${API}?patient_key={key}&schema_key=diagnose&limit=20 (a patient's diagnoses)`,
      paths: each(patients, (k) => `${API}?patient_key=${k}&schema_key=diagnose&limit=20`),
    },
    { name: 'list-note', request: `GET ${API}?note_key={uuid}&limit=20 (a note's commands)`, paths: each(notes, (n) => `${API}?note_key=${n}&limit=20`) },
    {
      name: 'list-state',
      request: `GET ${API}?state=committed&limit=20 (matches 55 % of all commands: the count is capped)`,
      paths: [`${API}?state=committed&limit=20`],
    },
    {
      name: 'list-latest',
      request: `GET ${API}?ordering=-created_at&limit=20 (no filter, newest first: the count is capped)`,
      paths: [`${API}?ordering=-created_at&limit=20`],
    },
    {
      name: 'count',
      request: `GET ${API}?state=committed&limit=1 (one row: the request is its count, capped at 10,000)`,
      paths: [`${API}?state=committed&limit=1`],
    },
    {
      name: 'count-patient',
      request: `GET ${API}?patient_key={key}&limit=1 (one row: the request is its exact count, ~400)`,
      paths: each(patients, (k) => `${API}?patient_key=${k}&limit=1`),
    },
  ];
}

/** The plan of one size: no write fixtures (the scale scenario only reads). */
export function scalePlan(opts: BenchOptions, commands: number): SetupArgs['plan'] {
  return { ...seedShape(commands), commands, patchFixtures: 0, commitFixtures: 0, analyzeSqlite: opts.sqliteAnalyze };
}
