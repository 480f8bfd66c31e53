// Applies the `values` patch of a create or PATCH to a command's data, inside its transaction:
// every value checked against its field (check-values.ts), null removing a value, autocomplete
// picks replaced by the catalogue's options, and the fields a kind adds from its data (a
// questionnaire's questions) checked once that data is known, the answers to fields no longer
// offered dropped. Every problem is reported at once, as one 400 naming the fields.
import type { Kysely } from 'kysely';
import type { Engine } from '../storage/db.ts';
import type { Database } from '../storage/schema.ts';
import { invalid } from '../http/problem.ts';
import { dependsOn, resolveOptions } from '../autocomplete/index.ts';
import type { CommandKind } from './kinds/types.ts';
import { fieldsFor } from './kinds/index.ts';
import { validateValues } from './check-values.ts';

export interface Target {
  db: Kysely<Database>;
  engine: Engine;
  patientKey: string;
}

/**
 * The checks that need no database: each value of the kind's own fields against its type
 * (values of the fields a kind adds from its data wait for that data). Throws the 400.
 */
export function checkValues(kind: CommandKind, values: unknown): { own: Record<string, unknown>; answers: Record<string, unknown> } {
  const own: Record<string, unknown> = {};
  const answers: Record<string, unknown> = {};
  const isObject = typeof values === 'object' && values !== null && !Array.isArray(values);
  for (const [name, value] of Object.entries(isObject ? (values as Record<string, unknown>) : {}))
    (kind.dataFields?.owns(name) === true ? answers : own)[name] = value;
  const checked = validateValues(kind, isObject ? own : values);
  if (!checked.ok) throw invalid(checked.errors);
  return { own: checked.values, answers };
}

export type CheckedValues = ReturnType<typeof checkValues>;

/** The command's new data from `values` (checked by checkValues, or checked here when raw). */
export async function applyValues(
  target: Target,
  kind: CommandKind,
  current: Record<string, unknown>,
  values: unknown,
  checked?: CheckedValues,
): Promise<Record<string, unknown>> {
  const { own, answers } = checked ?? checkValues(kind, values);

  const next = { ...current };
  const given: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(own)) {
    if (value === null) delete next[name];
    else given[name] = value;
  }
  const context = { db: target.db, engine: target.engine, patientKey: target.patientKey, data: { ...next, ...given } };
  const resolved = await resolveOptions(kind, given, context);
  if (!resolved.ok) throw invalid(resolved.errors);
  Object.assign(next, resolved.values);
  // Picks kept from before that depend on a field this request changes (tests on the lab
  // partner, the language on the material) must still be options.
  const changed = new Set(Object.keys(own));
  const stale = kind.fields.filter((f) => {
    const on = f.source === undefined ? undefined : dependsOn(f.source);
    return on !== undefined && changed.has(on) && !changed.has(f.name) && next[f.name] !== undefined;
  });
  if (stale.length > 0) {
    const again = await resolveOptions({ ...kind, fields: stale }, Object.fromEntries(stale.map((f) => [f.name, next[f.name]])), { ...context, data: next });
    if (!again.ok)
      throw invalid(again.errors.map((e) => ({ ...e, message: `${e.message} (it was picked before the field it depends on changed: pick it again)` })));
  }

  if (kind.dataFields !== undefined) {
    const { owns } = kind.dataFields;
    const withData = fieldsFor(kind, next);
    const offered = new Set(withData.fields.map((f) => f.name));
    // Values of fields no longer offered (answers to a questionnaire no longer chosen) go.
    for (const name of Object.keys(next)) if (owns(name) && !offered.has(name)) delete next[name];
    const answered = validateValues(withData, answers);
    if (!answered.ok) throw invalid(answered.errors);
    for (const [name, value] of Object.entries(answered.values)) {
      if (value === null) delete next[name];
      else next[name] = value;
    }
  }
  return next;
}
