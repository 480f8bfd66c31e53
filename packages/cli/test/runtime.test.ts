// Enabled plugins run (docs/plugins.md), end to end on each engine: real plugin projects written
// by the test, built and installed with the real `charta` tool, reacting to commands changed over
// the API. A follow-up instruct originated on a plan's commit, a prescribe commit refused without
// an indication, a handler that throws, loops, allocates without bound, logs, reads a secret; and
// disable, enable and update taking effect.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ENGINES, TEST_API_KEY, startInstance, type Instance } from '../../server/test/support/harness.ts';
import type { LogEntry } from '../../server/src/logs/bus.ts';
import { charta, single, tempDir } from './support/cli.ts';
import { until as waitFor } from '../../server/test/support/until.ts';

const C = '/core/api/v1/commands';

interface HandlerSpec {
  className: string;
  events: string[];
  /** The class body's compute(), in TypeScript (this.event, this.secrets, this.log are there). */
  compute: string;
}

/** Writes a plugin project: a manifest and one TypeScript module with the handler classes. */
function writePlugin(parent: string, name: string, handlers: HandlerSpec[], extra: Record<string, unknown> = {}, version = '1.0.0'): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(path.join(dir, 'src', 'plugin'), { recursive: true });
  const manifest = {
    sdk_version: '0.1.0',
    plugin_version: version,
    name,
    description: `Test plugin ${name}`,
    components: {
      handlers: handlers.map((h) => ({ entry: 'plugin/handlers.js', class: h.className, events: h.events, description: h.className })),
    },
    ...extra,
  };
  fs.writeFileSync(path.join(dir, 'CHARTA_MANIFEST.json'), JSON.stringify(manifest, null, 2));
  const classes = handlers.map(
    (h) => `export class ${h.className} extends BaseHandler {
  static override readonly RESPONDS_TO: readonly EventName[] = ${JSON.stringify(h.events)} as EventName[];
  compute(): Effect[] {
${h.compute}
  }
}`,
  );
  const source = `import { BaseHandler, originateCommand, validationError, type Effect, type EventName } from '@charta/plugin-sdk';
// eslint-disable-next-line @typescript-eslint/no-unused-vars
const keep = [originateCommand, validationError];
${classes.join('\n\n')}
`;
  fs.writeFileSync(path.join(dir, 'src', 'plugin', 'handlers.ts'), source);
  return dir;
}

for (const engine of ENGINES) {
  describe(`enabled plugins run (${engine})`, () => {
    let api: Instance;
    const dir = tempDir('charta-runtime-');
    const env = { CHARTA_CONFIG_DIR: path.join(dir, 'config') };
    const cli = (...args: string[]) => charta(args, env);
    const ok = async (...args: string[]) => {
      const line = single(await cli(...args), 0);
      assert.equal(line.success, true, JSON.stringify(line));
      return line;
    };
    /** Log entries of the instance so far (its recent history), optionally of one plugin. */
    const entries = (plugin?: string): LogEntry[] => api.app.logs.recent({ plugin }).map((r) => r.entry);
    /** Waits until `test` holds (the delivery is asynchronous); the failure shows the latest log entries. */
    const until = <T>(what: string, test: () => Promise<T | undefined | false> | T | undefined | false) =>
      waitFor(what, test, 10_000, () => `log: ${JSON.stringify(entries().slice(-15))}`);
    const commandsOf = async (noteKey: string) => (await api.call('GET', `${C}/?note_key=${noteKey}&limit=100`)).json.results as Array<Record<string, any>>;
    const delivered = () => api.app.pluginRuntime.delivery.idle();

    before(async () => {
      api = await startInstance(engine, { demo: true });
      await ok('auth', 'add-api-key', '--host', api.url, '--api-key', TEST_API_KEY, '--is-default');
    });
    after(async () => api?.stop());

    it('the project `charta plugin init` makes runs with no edits: a committed plan gets its follow-up, the handler its log line', async () => {
      await ok('plugin', 'init', '--no-input', '-o', dir, '--project-name', 'Starter Flag');
      const installed = await ok('plugin', 'install', path.join(dir, 'starter-flag'));
      assert.equal(installed.status_code, 201);
      await until('the plugin running', () => entries('starter-flag').find((e) => /running: 1 handler/.test(e.event)));
      const plan = await api.command('plan', { narrative: 'Recheck blood pressure' });
      assert.equal((await api.call('POST', `${C}/${plan.uuid}/commit/`)).status, 200);
      const instruct = await until('the follow-up instruct', async () => (await commandsOf(plan.noteKey)).find((c) => c.schema_key === 'instruct'));
      assert.equal(instruct.originated_by, 'plugin:starter-flag');
      assert.equal(instruct.data.comment, 'Follow up on: Recheck blood pressure');
      const line = entries('starter-flag').find((e) => e.source === 'plugin' && e.event.startsWith(`plan ${plan.uuid} committed by `));
      assert.ok(line, JSON.stringify(entries('starter-flag')));
      await ok('plugin', 'update', 'starter-flag', '--disable');
    });

    it('on PLAN_COMMAND__POST_COMMIT a plugin logs and originates a follow-up instruct in the same note', async () => {
      const project = writePlugin(dir, 'follow-up', [
        {
          className: 'FollowUp',
          events: ['PLAN_COMMAND__POST_COMMIT'],
          compute: `    const { note, fields } = this.event.context;
    this.log.info(\`plan \${this.event.target.id} committed\`);
    return [originateCommand('instruct', note.uuid, { comment: \`after: \${String(fields['narrative'])}\` })];`,
        },
      ]);
      const installed = await ok('plugin', 'install', project);
      assert.equal(installed.status_code, 201);
      await until('the plugin running', () => entries('follow-up').find((e) => /running: 1 handler/.test(e.event)));

      const plan = await api.command('plan', { narrative: 'Start metformin' });
      const committed = await api.call('POST', `${C}/${plan.uuid}/commit/`);
      assert.equal(committed.status, 200, committed.text);

      const instruct = await until('the follow-up instruct', async () => (await commandsOf(plan.noteKey)).find((c) => c.schema_key === 'instruct'));
      assert.equal(instruct.originated_by, 'plugin:follow-up');
      assert.equal(instruct.state, 'staged');
      assert.equal(instruct.data.comment, 'after: Start metformin');
      // The plugin's own line, tagged with the handler, event and the request that caused it.
      const line = entries('follow-up').find((e) => e.source === 'plugin' && e.event === `plan ${plan.uuid} committed`);
      assert.ok(line, JSON.stringify(entries('follow-up')));
      assert.equal(line.handler, 'plugin/handlers.js:FollowUp');
      assert.equal(line.event_type, 'PLAN_COMMAND__POST_COMMIT');
      assert.equal(line.request_id, committed.headers.get('x-request-id') ?? line.request_id);
      // Delivered once: no second instruct appears.
      await delivered();
      assert.equal((await commandsOf(plan.noteKey)).filter((c) => c.schema_key === 'instruct').length, 1);
    });

    it('disable stops it, enable starts it again, update replaces its code', async () => {
      await ok('plugin', 'update', 'follow-up', '--disable');
      await until('the plugin stopped', () => entries('follow-up').find((e) => /follow-up 1\.0\.0 stopped/.test(e.event)));
      const quiet = await api.command('plan', { narrative: 'No follow-up' });
      assert.equal((await api.call('POST', `${C}/${quiet.uuid}/commit/`)).status, 200);
      await delivered();
      assert.deepEqual(
        (await commandsOf(quiet.noteKey)).map((c) => c.schema_key),
        ['plan'],
      );

      await ok('plugin', 'update', 'follow-up', '--enable');
      await until('the plugin running again', () => entries('follow-up').filter((e) => /running: 1 handler/.test(e.event)).length >= 2 || undefined);
      const again = await api.command('plan', { narrative: 'Again' });
      assert.equal((await api.call('POST', `${C}/${again.uuid}/commit/`)).status, 200);
      await until('a follow-up after enable', async () => (await commandsOf(again.noteKey)).find((c) => c.schema_key === 'instruct'));

      // Version 2 writes another comment.
      const project = writePlugin(
        dir,
        'follow-up',
        [
          {
            className: 'FollowUp',
            events: ['PLAN_COMMAND__POST_COMMIT'],
            compute: `    return [originateCommand('instruct', this.event.context.note.uuid, { comment: 'version 2' })];`,
          },
        ],
        {},
        '2.0.0',
      );
      const updated = await ok('plugin', 'install', project);
      assert.equal(updated.status_code, 200);
      await until('version 2 running', () => entries('follow-up').find((e) => /follow-up 2\.0\.0 running/.test(e.event)));
      const third = await api.command('plan', { narrative: 'Third' });
      assert.equal((await api.call('POST', `${C}/${third.uuid}/commit/`)).status, 200);
      const instruct = await until('a version 2 follow-up', async () => (await commandsOf(third.noteKey)).find((c) => c.schema_key === 'instruct'));
      assert.equal(instruct.data.comment, 'version 2');
      await ok('plugin', 'update', 'follow-up', '--disable');
    });

    it('a plugin blocks commits of prescribe without an indication: 400 with its message, nothing committed', async () => {
      const project = writePlugin(dir, 'indication-required', [
        {
          className: 'NeedsIndication',
          events: ['PRESCRIBE_COMMAND__PRE_COMMIT'],
          compute: `    const indications = this.event.context.fields['indications'];
    if (Array.isArray(indications) && indications.length > 0) return [];
    return [validationError('A prescription needs an indication', { field: 'indications' })];`,
        },
      ]);
      await ok('plugin', 'install', project);
      await until('the plugin running', () => entries('indication-required').find((e) => /running/.test(e.event)));

      const prescribe = await completePrescribe(api);
      const refused = await api.call('POST', `${C}/${prescribe.uuid}/commit/`);
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.json.code, 'plugin_validation_failed');
      assert.deepEqual(refused.json.errors, [{ field: 'indications', message: 'A prescription needs an indication', plugin: 'indication-required' }]);
      assert.match(refused.json.detail, /indication-required: A prescription needs an indication/);
      const after = await api.call('GET', `${C}/${prescribe.uuid}/`);
      assert.equal(after.json.state, 'staged');
      assert.deepEqual(after.json.committed_by, null);
      await ok('plugin', 'update', 'indication-required', '--disable');
      await until('the plugin stopped', () => entries('indication-required').find((e) => /stopped/.test(e.event)));
      assert.equal((await api.call('POST', `${C}/${prescribe.uuid}/commit/`)).status, 200);
    });

    it('a handler that throws, loops forever or allocates without bound: logged as a failure, the change goes ahead', async () => {
      const project = writePlugin(
        dir,
        'faulty',
        [
          { className: 'Thrower', events: ['GOAL_COMMAND__POST_ORIGINATE'], compute: `    throw new Error('boom from the plugin');` },
          { className: 'Looper', events: ['GOAL_COMMAND__PRE_UPDATE'], compute: `    for (;;) { /* forever */ }` },
          {
            className: 'Hog',
            events: ['GOAL_COMMAND__PRE_DELETE'],
            compute: `    const hoard: object[] = [];
    for (let i = 0; ; i++) hoard.push({ i, text: 'item ' + i });`,
          },
          { className: 'Fine', events: ['GOAL_COMMAND__PRE_DELETE'], compute: `    this.log.info('still here after the hog');\n    return [];` },
        ],
        { limits: { memory_mb: 8, timeout_ms: 1500 } },
      );
      await ok('plugin', 'install', project);
      await until('the plugin running', () => entries('faulty').find((e) => /running: 4 handler/.test(e.event)));

      const goal = await api.command('goal', { goal_statement: 'Walk daily' });
      const patched = await api.call('PATCH', `${C}/${goal.uuid}/`, { body: { values: { goal_statement: 'Walk every day' } } });
      assert.equal(patched.status, 200, patched.text);
      const deleted = await api.call('DELETE', `${C}/${goal.uuid}/`);
      assert.equal(deleted.status, 200, deleted.text);

      const failures = await until('three failure lines', () => {
        const found = entries('faulty').filter((e) => e.success === false);
        return found.length >= 3 ? found : undefined;
      });
      const byHandler = new Map(failures.map((f) => [f.handler, f]));
      assert.match(byHandler.get('plugin/handlers.js:Thrower')!.event, /threw Error: boom from the plugin/);
      assert.equal(byHandler.get('plugin/handlers.js:Thrower')!.event_type, 'GOAL_COMMAND__POST_ORIGINATE');
      assert.match(byHandler.get('plugin/handlers.js:Looper')!.event, /deadline/);
      assert.equal(byHandler.get('plugin/handlers.js:Looper')!.request_id, patched.headers.get('x-request-id'));
      // Out of memory, as a rule; on a loaded machine QuickJS's collector, running at every
      // allocation near the limit, can outlast the deadline first: a timeout, as contained.
      assert.match(byHandler.get('plugin/handlers.js:Hog')!.event, /out of memory|ran longer than its 1500 ms deadline/);
      for (const f of failures) {
        assert.equal(f.level, 'error');
        assert.equal(f.plugin, 'faulty');
      }
      // The runtime was replaced after the hog; the next handler of the same event ran in it.
      assert.ok(entries('faulty').find((e) => e.source === 'plugin' && e.event === 'still here after the hog'));
      assert.equal((await api.call('GET', `${C}/${goal.uuid}/`)).status, 404);
      await ok('plugin', 'update', 'faulty', '--disable');
    });

    it('a handler reads a secret set with `charta plugin update --secret`; its value is never logged', async () => {
      const project = writePlugin(
        dir,
        'secretive',
        [
          {
            className: 'UsesSecret',
            events: ['HISTORY_OF_PRESENT_ILLNESS_COMMAND__POST_ORIGINATE'],
            compute: `    const token = this.secrets['API_TOKEN'] ?? '';
    this.log.info(\`token length \${token.length}, matches \${token === 'tok-' + 'en-9f8e7d'}\`);
    return [];`,
          },
        ],
        { secrets: ['API_TOKEN'] },
      );
      await ok('plugin', 'install', project);
      await ok('plugin', 'update', 'secretive', '--secret', 'API_TOKEN=tok-en-9f8e7d');
      await until('the plugin running with its secret', () => entries('secretive').filter((e) => /running/.test(e.event)).length >= 2 || undefined);
      await api.command('hpi', { narrative: 'Headache' });
      await until('the handler line', () => entries('secretive').find((e) => e.event === 'token length 13, matches true'));
      for (const e of entries()) assert.ok(!JSON.stringify(e).includes('tok-en-9f8e7d'), JSON.stringify(e));
      await ok('plugin', 'update', 'secretive', '--disable');
    });

    it('a Python package for the original tool is accepted and listed; enabling it logs that it has nothing to run', async () => {
      const { buildZip } = await import('../../server/test/support/archives.ts');
      const wheel = path.join(dir, 'py_plugin-1.0.0-py3-none-any.whl');
      fs.writeFileSync(
        wheel,
        await buildZip([
          { name: 'py_plugin/__init__.py', data: '' },
          { name: 'py_plugin-1.0.0.dist-info/METADATA', data: 'Metadata-Version: 2.1\nName: py_plugin\nVersion: 1.0.0\nSummary: Python\n' },
        ]),
      );
      const installed = await ok('plugin', 'install', wheel);
      assert.equal(installed.status_code, 201);
      const line = await until('the error line', () => entries('py-plugin').find((e) => e.level === 'error' && /nothing Charta can run/.test(e.event)));
      assert.equal(line.success, false);
    });
  });
}

/** A prescribe with every field its commit needs, picked through autocomplete, and no indication. */
async function completePrescribe(api: Instance): Promise<{ uuid: string }> {
  const created = await api.command('prescribe', { sig: 'one daily' });
  const pick = async (field: string, terms = ['a', 'e', 'i', 'o', 't', 's', 'm']) => {
    for (const term of terms) {
      const r = await api.call('GET', `${C}/${created.uuid}/fields/${field}/autocomplete/?search_term=${term}`);
      if (r.status === 200 && r.json.length > 0) return r.json[0].value as string;
    }
    throw new Error(`no option for ${field}`);
  };
  const values = {
    prescribe: await pick('prescribe'),
    type_to_dispense: await pick('type_to_dispense'),
    prescriber: await pick('prescriber'),
    quantity_to_dispense: '30',
    refills: 0,
    substitutions: 'allowed',
  };
  const r = await api.call('PATCH', `${C}/${created.uuid}/`, { body: { values } });
  assert.equal(r.status, 200, r.text);
  return { uuid: created.uuid };
}
