// Prints the SQL Charta sends to the database for one request of each Commands API path (GET by
// uuid, the list pages, create, PATCH, commit): what the bare-pg and bare-sqlite twins
// (lib/bare-pg.ts, lib/bare-sqlite.ts) replay.
// Usage: node --import tsx bench/capture-sql.ts [postgres|sqlite]
import path from 'node:path';
import { isoMicros } from '../packages/server/src/lib/time.ts';
import { Child } from './lib/child.ts';
import type { SetupArgs, SetupResult } from './lib/charta-server.ts';

const API = '/core/api/v1/commands';
const child = new Child(path.join(import.meta.dirname, 'lib/charta-server.ts'));
try {
  const plan: SetupArgs['plan'] = { patients: 10, notes: 20, commands: 500, patchFixtures: 5, commitFixtures: 5 };
  const f = await child.call<SetupResult>('setup', { engine: process.argv[2] === 'sqlite' ? 'sqlite' : 'postgres', plan } satisfies SetupArgs);
  const narrative = 'Follow up in two weeks.';
  const after = encodeURIComponent(isoMicros(f.createdAfter));
  const requests: Array<[string, string, string, unknown?]> = [
    ['get', 'GET', `${API}/${f.sampleUuids[0]}`],
    ['list', 'GET', `${API}?patient_key=${f.patientKeys[0]}&state=committed&limit=20`],
    ['list-created', 'GET', `${API}?patient_key=${f.patientKeys[0]}&created_at__gte=${after}&limit=20`],
    ['create', 'POST', `${API}/`, { schemaKey: 'plan', noteKey: f.writableNotes[0], values: { narrative } }],
    ['patch', 'PATCH', `${API}/${f.patchUuids[0]}/`, { values: { narrative: `Revised: ${narrative}` } }],
    ['commit', 'POST', `${API}/${f.commitUuids[0]}/commit/`],
  ];
  for (const [name, method, url, body] of requests) {
    // Twice: the first request of a path may warm caches (and send statements the next does not).
    for (const round of [1, 2]) {
      await child.call('captureSql', { on: true });
      const res = await fetch(f.url + url, {
        method,
        headers: { authorization: `Bearer ${f.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body === undefined ? undefined : JSON.stringify(name === 'patch' && round === 2 ? { values: { narrative: 'again' } } : body),
      });
      await res.text();
      const statements = await child.call<Array<{ text: string; values: unknown[] }>>('captureSql', { on: false });
      if (round === 1 && name !== 'commit') continue;
      console.log(`\n## ${name} (${method} ${url} → ${res.status}): ${statements.length} statements`);
      for (const s of statements) console.log(`${s.text}\n    -- ${JSON.stringify(s.values).slice(0, 400)}`);
    }
  }
} finally {
  await child.stop();
}
