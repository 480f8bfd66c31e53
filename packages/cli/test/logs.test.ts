// `charta logs` through the real binary against a real instance (SQLite): the "Connected" line,
// then command lifecycle entries as success lines while commands are created and committed
// through the API; `--level warning` filtering them out; a wrong key (the instance's 401 problem),
// an unreachable host and a bad `--level` as failure lines with their exit codes; SIGTERM closing
// quietly with exit 0; the instance shutting down ends the stream with a failure line. Every stdout line is JSON and nothing prints a stack trace.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { TEST_API_KEY, startInstance, type Instance } from '../../server/test/support/harness.ts';
import { charta, closedPort, event, follow, killFollowers, single, tempDir } from './support/cli.ts';
import { isSince, parse } from '../src/commands/logs.ts';

describe('charta logs', () => {
  let api: Instance;
  const dir = tempDir('charta-logs-');
  const env = { CHARTA_CONFIG_DIR: path.join(dir, 'config') };

  before(async () => {
    api = await startInstance('sqlite');
  });
  after(async () => {
    killFollowers();
    await api?.stop();
  });

  it('streams command entries as success lines; --level warning filters them out; SIGTERM exits 0', async () => {
    const all = follow(['--host', api.url, '--api-key', TEST_API_KEY], env);
    const warnings = follow(['--host', api.url, '--api-key', TEST_API_KEY, '--level', 'warning'], env);
    for (const f of [all, warnings]) {
      const hello = await f.waitFor((line) => typeof line.message === 'string');
      assert.deepEqual(hello, { success: true, message: `Connected to the log stream of ${api.url}` });
    }

    const patient = await api.call('POST', '/core/api/v1/patients/', { body: { firstName: 'Log', lastName: 'Stream' } });
    assert.equal(patient.status, 201, patient.text);
    const note = await api.call('POST', '/core/api/v1/notes/', { body: { patientKey: patient.json.key, noteType: 'encounter' } });
    assert.equal(note.status, 201, note.text);
    const command = await api.call('POST', '/core/api/v1/commands/', {
      body: { schemaKey: 'plan', noteKey: note.json.uuid, values: { narrative: 'Follow up in two weeks' } },
    });
    assert.equal(command.status, 201, command.text);
    const uuid = command.json.uuid as string;
    const committed = await api.call('POST', `/core/api/v1/commands/${uuid}/commit/`);
    assert.equal(committed.status, 200, committed.text);

    const created = await all.waitFor((line) => event(line).startsWith(`command ${uuid} (plan) created`));
    const done = await all.waitFor((line) => event(line).startsWith(`command ${uuid} (plan) committed`));
    for (const line of [created, done]) {
      assert.equal(line.success, true);
      assert.deepEqual(Object.keys(line), ['success', 'message']);
      const entry = line.message as Record<string, unknown>;
      assert.equal(entry.level, 'info');
      assert.equal(entry.source, 'server');
      assert.equal(typeof entry.timestamp, 'string');
    }
    assert.ok(
      all.lines.every((line) => line.success === true),
      JSON.stringify(all.lines),
    );

    for (const f of [all, warnings]) f.child.kill('SIGTERM');
    assert.equal(await all.exited, 0, all.stderr());
    assert.equal(await warnings.exited, 0, warnings.stderr());
    assert.equal(warnings.lines.length, 1, JSON.stringify(warnings.lines));
    assert.ok(!warnings.lines.some((line) => event(line).includes(uuid)));
    assert.ok(!/\n\s+at /.test(all.stderr() + warnings.stderr()));
  });

  it('the instance closing the stream → "The log stream closed (code N)", exit 1', async () => {
    const other = await startInstance('sqlite');
    try {
      const f = follow(['--host', other.url, '--api-key', TEST_API_KEY], env);
      await f.waitFor((line) => typeof line.message === 'string');
      await other.close();
      assert.equal(await f.exited, 1, f.stderr());
      assert.deepEqual(f.lines.at(-1), { success: false, message: 'The log stream closed (code 1001)' });
      assert.ok(!/\n\s+at /.test(f.stderr()));
    } finally {
      await other.db.drop();
    }
  });

  it('a wrong API key → the 401 problem, exit 1', async () => {
    const line = single(await charta(['logs', '--host', api.url, '--api-key', 'not-the-key'], env), 1);
    assert.equal(line.success, false);
    assert.equal(line.status_code, 401);
    assert.equal(typeof line.message, 'object');
  });

  it('an unreachable host → "Failed to connect", exit 1', async () => {
    const host = `http://127.0.0.1:${await closedPort()}`;
    const line = single(await charta(['logs', '--host', host, '--api-key', TEST_API_KEY], env), 1);
    assert.equal(line.success, false);
    assert.match(String(line.message), new RegExp(`^Failed to connect to ${host}: `));
  });

  it('a bad --level or --since → usage error, exit 2, nothing sent', async () => {
    const loud = single(await charta(['logs', '--host', api.url, '--api-key', TEST_API_KEY, '--level', 'loud'], env), 2);
    assert.match(String(loud.message), /--level 'loud'/);
    const soon = single(await charta(['logs', '--host', api.url, '--api-key', TEST_API_KEY, '--since', 'yesterday'], env), 2);
    assert.match(String(soon.message), /--since 'yesterday'/);
  });

  it('validates --since with the instance vocabulary', () => {
    for (const ok of ['30s', '5m', '1h', '2d', '2026-11-22T08:00:00Z', '2026-11-22T08:00+01:00', '2026-02-28 23:59:59.123456-05:00'])
      assert.ok(isSince(ok), ok);
    for (const bad of ['', '5', '5w', '1.5h', '2026-02-30T00:00Z', '2026-11-22T08:00:00', '2026-11-22', '2026-13-01T00:00Z']) assert.ok(!isSince(bad), bad);
    assert.deepEqual(parse({ args: [], flags: { level: 'error', since: '1h', plugin: 'vitals-alert' } }), {
      target: { host: undefined, apiKey: undefined },
      plugin: 'vitals-alert',
      level: 'error',
      since: '1h',
    });
  });
});
