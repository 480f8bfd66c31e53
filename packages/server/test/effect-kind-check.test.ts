// The kind an effect names (`COMMIT_PLAN_COMMAND` commits a plan; docs/plugins.md, "Effects") is a
// precondition of the command operation, checked on the locked row inside its write transaction
// (commands/rules.ts, `Preconditions`), on each engine: an effect naming a command of another kind
// is not applied (400 command_kind_mismatch, one error line each) and writes nothing, while an
// effect of the right kind applies. The same precondition refuses a direct call of the operations.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { ENGINES, startInstance, type Instance } from './support/harness.ts';
import type { LogEntry } from '../src/logs/bus.ts';
import type { Ctx } from '../src/context.ts';
import { CLINICAL_SCOPE } from '../src/auth/acting-staff.ts';
import { Problem } from '../src/http/problem.ts';
import { applyEffects, pluginActor } from '../src/runtime/effects.ts';
import { commitCommand } from '../src/commands/commit.ts';
import { updateCommand } from '../src/commands/update.ts';
import { enterInError } from '../src/commands/enter-in-error.ts';
import { countPluginEvents } from '../src/storage/plugin-events-repository.ts';

const PLUGIN = 'kinds';
const HANDLER = {
  plugin: PLUGIN,
  entry: 'dist/handlers.js',
  className: 'Kinds',
  id: 'dist/handlers.js:Kinds',
  events: [],
  secrets: {},
  onFailure: 'allow' as const,
  effectsPerAnswer: 100,
  routes: [],
  schedule: null,
  data: { read: [], scope: 'event_patient' as const, reads: 50, rows: 2000 },
};

for (const engine of ENGINES) {
  describe(`the kind an effect names is checked inside its write (${engine})`, () => {
    let api: Instance;
    const seen: LogEntry[] = [];
    let p: { patientKey: string; noteKey: string };
    let goal = '';

    /** Applies `effects` as the plugin's answer to a POST event about patient P; answers its failure lines. */
    const answer = async (effects: unknown[]) => {
      const runtime = api.app.pluginRuntime;
      const from = seen.length;
      await applyEffects(
        { storage: api.storage, logs: api.app.logs, signals: api.app.signals, runtime, calls: runtime.calls, effectsPerChange: 1000 },
        HANDLER,
        { id: crypto.randomUUID(), type: 'GOAL_COMMAND__POST_ORIGINATE', depth: 0, requestId: 'kinds', root: crypto.randomUUID(), patient: p.patientKey },
        effects as never,
      );
      return seen
        .slice(from)
        .filter((e) => e.plugin === PLUGIN && e.success === false)
        .map((e) => e.event.replace(/^.* on GOAL_COMMAND__POST_ORIGINATE /, ''));
    };
    const row = (uuid: string) => api.storage.db.selectFrom('commands').selectAll().where('uuid', '=', uuid).executeTakeFirst();
    const audits = (uuid: string) =>
      api.storage.db.selectFrom('audit_events').select(['action', 'actor']).where('entity_id', '=', uuid).orderBy('id').execute();
    /** Every error thrown inside a write transaction's work while `run` runs. */
    const thrownInside = async (run: () => Promise<unknown>): Promise<unknown[]> => {
      const storage = api.storage;
      const transact = storage.transact;
      const thrown: unknown[] = [];
      storage.transact = ((work: Parameters<typeof transact>[0]) =>
        transact.call(storage, async (trx, hold) => {
          try {
            return await work(trx, hold);
          } catch (err) {
            thrown.push(err);
            throw err;
          }
        })) as typeof transact;
      try {
        await run();
      } finally {
        storage.transact = transact;
      }
      return thrown;
    };

    before(async () => {
      api = await startInstance(engine);
      api.app.logs.subscribe((entry) => seen.push(entry));
      p = await api.note();
      // A goal the plugin originated itself, so within its reach: only its kind is wrong below.
      assert.deepEqual(await answer([{ type: 'ORIGINATE_GOAL_COMMAND', payload: { command: null, note: p.noteKey, data: {}, line_number: -1 } }]), []);
      const [created] = await api.storage.db.selectFrom('commands').select('uuid').where('note_uuid', '=', p.noteKey).execute();
      goal = created!.uuid;
    });
    after(async () => api?.stop());

    it('an effect naming a command of another kind is refused in its transaction, one line each, and writes nothing', async () => {
      const stored = await row(goal);
      const audited = await audits(goal);
      const outbox = await countPluginEvents(api.storage.db);
      let lines: string[] = [];
      const inside = await thrownInside(async () => {
        lines = await answer([
          { type: 'EDIT_PLAN_COMMAND', payload: { command: goal, data: { narrative: 'Not a plan' } } },
          { type: 'COMMIT_PLAN_COMMAND', payload: { command: goal } },
          { type: 'DELETE_PLAN_COMMAND', payload: { command: goal } },
          { type: 'ENTER_IN_ERROR_PLAN_COMMAND', payload: { command: goal } },
        ]);
      });
      const why = `400 command_kind_mismatch: Command ${goal} is a goal command, not plan`;
      assert.deepEqual(lines, [
        `effect 0 (EDIT_PLAN_COMMAND) was not applied: ${why}`,
        `effect 1 (COMMIT_PLAN_COMMAND) was not applied: ${why}`,
        `effect 2 (DELETE_PLAN_COMMAND) was not applied: ${why}`,
        `effect 3 (ENTER_IN_ERROR_PLAN_COMMAND) was not applied: ${why}`,
      ]);
      // Each refusal came from inside a write transaction (the reach check before it reads outside any).
      assert.deepEqual(
        inside.map((e) => (e instanceof Problem ? e.code : String(e))),
        ['command_kind_mismatch', 'command_kind_mismatch', 'command_kind_mismatch', 'command_kind_mismatch'],
      );
      assert.deepEqual(await row(goal), stored, 'the command is unchanged');
      assert.deepEqual(await audits(goal), audited, 'no audit row');
      assert.equal(await countPluginEvents(api.storage.db), outbox, 'no event');
    });

    it('an effect of the right kind applies', async () => {
      assert.deepEqual(await answer([{ type: 'EDIT_GOAL_COMMAND', payload: { command: goal, data: { goal_statement: 'Walk daily' } } }]), []);
      assert.equal(JSON.parse((await row(goal))!.data).goal_statement, 'Walk daily');
      assert.deepEqual(await audits(goal), [
        { action: 'command.created', actor: pluginActor(PLUGIN) },
        { action: 'command.updated', actor: pluginActor(PLUGIN) },
      ]);
    });

    it('the operations refuse a kind precondition that does not hold, before the state rules, writing nothing', async () => {
      const ctx: Ctx = {
        storage: api.storage,
        principal: { kind: 'token', staffKey: 'dr-test', credential: 'dr-test', scopes: [CLINICAL_SCOPE] },
        requestId: 'kinds-direct',
      };
      const stored = await row(goal);
      const writes = [
        () => commitCommand(ctx, goal, { kind: 'diagnose' }),
        () => updateCommand(ctx, goal, { narrative: 'x' }, { kind: 'plan' }),
        // A staged command cannot be entered in error either: the kind is checked first.
        () => enterInError(ctx, goal, { kind: 'plan' }),
      ];
      for (const write of writes) {
        await assert.rejects(write, (err: unknown) => err instanceof Problem && err.status === 400 && err.code === 'command_kind_mismatch');
      }
      assert.deepEqual(await row(goal), stored);
      // The right kind passes.
      const committed = await commitCommand(ctx, goal, { kind: 'goal' });
      assert.equal(committed.body.state, 'committed');
    });
  });
}
