// Grants given to a plugin (docs/plugins.md, "Grants"), on each engine, through the plugin API: given
// at install, given and taken back by PATCH, audited and logged, shown by every answer; a name that
// is no grant is a 400 naming the known ones, and nothing is written.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, TEST_API_KEY, startInstance, toReply, type Instance, type Reply } from './support/harness.ts';
import { changeGrants, pluginPackage, type TestHandler } from './support/plugins.ts';
import type { LogEntry } from '../src/logs/bus.ts';

const P = '/core/api/v1/plugins';

/** Answers the effects a plan's narrative holds as JSON (a narrative that is no JSON list: none). */
const REACHER: TestHandler = {
  className: 'Reach',
  events: ['PLAN_COMMAND__POST_ORIGINATE'],
  compute: `    const text = this.event.context.fields.narrative ?? '';
    return text.startsWith('[') ? JSON.parse(text) : [];`,
};

for (const engine of ENGINES) {
  describe(`grants (${engine})`, () => {
    let api: Instance;
    /** Every log entry of the instance since it started (the recent ring keeps only the last 1000). */
    const seen: LogEntry[] = [];

    before(async () => {
      api = await startInstance(engine);
      api.app.logs.subscribe((entry) => seen.push(entry));
    });
    after(async () => api?.stop());

    describe('grants given and taken back', () => {
      /** A multipart install or PATCH with repeated fields, as the charta tool sends it. */
      const send = async (method: string, path: string, fields: Array<[string, string]>, pkg?: Buffer) => {
        const form = new FormData();
        for (const [k, v] of fields) form.append(k, v);
        if (pkg !== undefined) form.set('package', new Blob([new Uint8Array(pkg)]), 'trusted.tar.gz');
        return toReply(await fetch(`${api.url}${P}${path}`, { method, body: form, headers: { authorization: TEST_API_KEY } }));
      };
      const audit = async () =>
        (
          await api.storage.db
            .selectFrom('audit_events')
            .select(['action', 'before', 'after'])
            .where('entity_type', '=', 'plugin')
            .where('entity_id', '=', 'trusted')
            .orderBy('id')
            .execute()
        ).map((r) => ({ action: r.action, before: JSON.parse(r.before ?? 'null'), after: JSON.parse(r.after ?? 'null') }));
      const grantLines = () => seen.filter((e) => e.plugin === 'trusted' && / grants: /.test(e.event)).map((e) => e.event);
      const readPlugin = async () => (await api.call('GET', `${P}/trusted/`, { authorization: TEST_API_KEY })).json;
      const listed = async () => (await api.call('GET', `${P}/`, { authorization: TEST_API_KEY })).json.results.find((r: any) => r.name === 'trusted');
      const refused = (r: Reply, field: string, name: string) => {
        assert.equal(r.status, 400, r.text);
        assert.equal(r.json.code, 'validation_failed');
        assert.deepEqual(r.json.errors, [{ field, message: `${JSON.stringify(name)} is not a grant; the grants are effects:any-command, effects:instance` }]);
      };

      it('an unknown grant at install is a 400 naming the known grants, and nothing is written', async () => {
        const pkg = await pluginPackage('trusted', [REACHER]);
        refused(
          await send(
            'POST',
            '/',
            [
              ['grant', 'effects:instance'],
              ['grant', 'effects:everything'],
            ],
            pkg,
          ),
          'grant[1]',
          'effects:everything',
        );
        const revoked = await send('POST', '/', [['revoke', 'effects:instance']], pkg);
        assert.equal(revoked.status, 400, revoked.text);
        assert.equal((await api.call('GET', `${P}/trusted/`, { authorization: TEST_API_KEY })).status, 404);
        assert.deepEqual(await audit(), []);
        assert.deepEqual(grantLines(), []);
      });

      it('install with grants: stored, shown by every answer, audited and logged', async () => {
        const pkg = await pluginPackage('trusted', [REACHER]);
        const r = await send(
          'POST',
          '/',
          [
            ['is_enabled', 'False'],
            ['grant', 'effects:instance'],
            ['grant', 'effects:any-command'],
            ['grant', 'effects:instance'],
          ],
          pkg,
        );
        assert.equal(r.status, 201, r.text);
        assert.deepEqual(r.json.grants, ['effects:any-command', 'effects:instance']);
        assert.deepEqual(await readPlugin(), r.json);
        assert.deepEqual(await listed(), r.json);
        const rows = await audit();
        assert.deepEqual(
          rows.map((row) => [row.action, row.after?.grants]),
          [['plugin.installed', ['effects:any-command', 'effects:instance']]],
        );
        assert.deepEqual(grantLines(), ['plugin trusted grants: effects:any-command, effects:instance (granted: effects:any-command, effects:instance)']);
      });

      it('PATCH gives (`grant`) and takes back (`revoke`) grants, each change audited with before and after and logged', async () => {
        const revoked = await send('PATCH', '/trusted/', [['revoke', 'effects:instance']]);
        assert.equal(revoked.status, 200, revoked.text);
        assert.deepEqual(revoked.json.grants, ['effects:any-command']);
        // Form-encoded, as a PATCH without a package may be sent.
        const both = await changeGrants(api.url, 'trusted', { grant: ['effects:instance'], revoke: ['effects:any-command'] });
        assert.deepEqual(both.json.grants, ['effects:instance']);
        assert.deepEqual((await readPlugin()).grants, ['effects:instance']);
        assert.deepEqual((await listed()).grants, ['effects:instance']);
        // Giving one it has changes nothing: no audit row, no line.
        await changeGrants(api.url, 'trusted', { grant: ['effects:instance'] });
        const changes = (await audit()).filter((row) => row.action === 'plugin.grants_changed');
        assert.deepEqual(
          changes.map((row) => [row.before, row.after]),
          [
            [{ grants: ['effects:any-command', 'effects:instance'] }, { grants: ['effects:any-command'] }],
            [{ grants: ['effects:any-command'] }, { grants: ['effects:instance'] }],
          ],
        );
        assert.deepEqual(grantLines().slice(1), [
          'plugin trusted grants: effects:any-command (revoked: effects:instance)',
          'plugin trusted grants: effects:instance (granted: effects:instance; revoked: effects:any-command)',
        ]);
      });

      it('an unknown grant or revoke at PATCH is a 400 naming the known grants; nothing is written, not even the rest of the PATCH', async () => {
        const rows = (await audit()).length;
        refused(
          await send('PATCH', '/trusted/', [
            ['is_enabled', 'True'],
            ['revoke', 'admin'],
          ]),
          'revoke[0]',
          'admin',
        );
        refused(
          await send('PATCH', '/trusted/', [
            ['grant', 'effects:any-command'],
            ['grant', 'EFFECTS:INSTANCE'],
          ]),
          'grant[1]',
          'EFFECTS:INSTANCE',
        );
        const twice = await send('PATCH', '/trusted/', [
          ['grant', 'effects:any-command'],
          ['revoke', 'effects:any-command'],
        ]);
        assert.equal(twice.status, 400, twice.text);
        assert.match(twice.json.errors[0].message, /effects:any-command is both granted and revoked/);
        const now = await readPlugin();
        assert.deepEqual(now.grants, ['effects:instance']);
        assert.equal(now.is_enabled, false);
        assert.equal((await audit()).length, rows);
        assert.equal((await api.call('DELETE', `${P}/trusted/`, { authorization: TEST_API_KEY })).status, 204);
      });
    });
  });
}
