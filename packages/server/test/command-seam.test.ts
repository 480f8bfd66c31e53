// The shape the plugin runtime relies on: commands/transition.ts is the one place where a
// command is written (so PRE and POST events have one home), each kind owns its behaviour (its
// chart effect, its data-driven fields) instead of switches on schema_key. (What the layers may
// import is layout.test.ts's.)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { commandKinds } from '../src/commands/kinds/index.ts';

const SRC = path.resolve(import.meta.dirname, '../src');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sources(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every module a file imports, resolved to a path relative to src/, with the names it imports. */
function importsOf(file: string): Array<{ module: string; names: string[] }> {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/^import (?:type )?(?:\{([^}]*)\}|[\w*\s]+) from '(\.[^']+)';/gm)].map((m) => ({
    module: path.relative(SRC, path.resolve(path.dirname(file), m[2]!)),
    names: (m[1] ?? '')
      .split(',')
      .map((n) => n.trim().replace(/^type /, ''))
      .filter(Boolean),
  }));
}

const relative = (file: string) => path.relative(SRC, file);
/** What storage/commands-repository.ts offers that writes a command. */
const WRITES = ['updateCommand', 'updateCommandWithAudit', 'deleteCommand', 'insertCommand', 'insertCommandWithAudit'];

describe('the command transition seam', () => {
  it('only commands/transition.ts changes or deletes a stored command, and only create.ts inserts one', () => {
    const writers = new Map<string, string[]>();
    for (const file of sources(SRC)) {
      for (const { module, names } of importsOf(file)) {
        if (module !== path.join('storage', 'commands-repository.ts')) continue;
        for (const name of names.filter((n) => WRITES.includes(n.split(' as ')[0]!))) {
          writers.set(name.split(' as ')[0]!, [...(writers.get(name.split(' as ')[0]!) ?? []), relative(file)]);
        }
      }
    }
    assert.deepEqual(Object.fromEntries(writers), {
      updateCommandWithAudit: [path.join('commands', 'transition.ts')],
      deleteCommand: [path.join('commands', 'transition.ts')],
      insertCommandWithAudit: [path.join('commands', 'create.ts')],
    });
  });

  it('every command operation that writes goes through commands/transition.ts, never writeTransaction itself', () => {
    for (const file of sources(path.join(SRC, 'commands'))) {
      if (relative(file) === path.join('commands', 'transition.ts')) continue;
      const names = importsOf(file).flatMap((i) => (i.module === path.join('storage', 'transaction.ts') ? i.names : []));
      assert.ok(!names.includes('writeTransaction'), `${relative(file)} opens its own write transaction`);
    }
    for (const op of ['commit.ts', 'enter-in-error.ts', 'update.ts', 'delete.ts']) {
      const names = importsOf(path.join(SRC, 'commands', op)).flatMap((i) => (i.module === path.join('commands', 'transition.ts') ? i.names : []));
      assert.ok(names.includes('transition'), `${op} does not use transition()`);
    }
  });
});

describe('a kind owns its behaviour', () => {
  it('the kinds that change the chart are exactly those with an onCommit hook', () => {
    const withHook = [...commandKinds.values()].filter((k) => k.onCommit !== undefined).map((k) => k.key);
    assert.deepEqual(withHook.sort(), ['diagnose', 'goal', 'medicationStatement', 'prescribe', 'stopMedication', 'updateGoal']);
  });

  it('the questionnaire adds its question fields from its data, and only it does', () => {
    const questionnaire = commandKinds.get('questionnaire')!;
    const data = { questionnaire: { extra: { questions: [{ pk: '7', code: 'q', label: 'How?', type: 'TXT', options: [] }] } } };
    assert.deepEqual(
      questionnaire.dataFields?.of(data).map((f) => f.name),
      ['question-7'],
    );
    assert.equal(questionnaire.dataFields?.owns('question-7'), true);
    assert.deepEqual(
      [...commandKinds.values()].filter((k) => k.dataFields !== undefined).map((k) => k.key),
      ['questionnaire'],
    );
  });

  it('goal and updateGoal share one definition of how a goal stands', () => {
    const field = (kind: string, name: string) => commandKinds.get(kind)!.fields.find((f) => f.name === name);
    for (const name of ['achievement_status', 'priority', 'progress']) assert.equal(field('goal', name), field('updateGoal', name), name);
  });

  it('no switch on schema_key is left in chart/ or in the values code', () => {
    const files = [...sources(path.join(SRC, 'chart')), ...['check-values.ts', 'apply-values-patch.ts', 'fields.ts'].map((f) => path.join(SRC, 'commands', f))];
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      assert.doesNotMatch(text, /switch \([^)]*schema_key|schema_key ===|kind\.key ===|case '(diagnose|prescribe|goal|questionnaire)'/, relative(file));
    }
  });
});
