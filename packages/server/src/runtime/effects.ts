// Applying the effects of a POST event (docs/plugins.md, "Effects"): each effect type is one
// operation of the API's (the table OPERATIONS below), with its validation, state rules, audit
// and log stream, called as the plugin's own user `plugin:<name>` with an Idempotency-Key made of
// the event, the handler and the effect's index, so an event delivered twice applies each effect
// once. Each operation opens its own write transaction; this file opens none (the answer's
// reservation against its chain's budget is effect-limits.ts's). An effect that cannot be applied
// is an error line on the log stream, never dropped in silence.
//
// Before any effect runs, the answer is held to the breadth limits (effect-limits.ts;
// docs/plugins.md, "Breadth limits"). Each effect is then held to the plugin's reach
// (docs/plugins.md, "Grants"), checked against the stored command or note before its operation is
// called: by default only the event's patient, and only commands the plugin itself originated.
// What the effect's type says of the command (its kind) and what may change under it (its state)
// the operation checks on the locked row, inside its write (commands/rules.ts, `Preconditions`).
import type { Ctx } from '../context.ts';
import type { Storage } from '../storage/db.ts';
import type { LogBus } from '../logs/bus.ts';
import type { Signals } from '../signals/bus.ts';
import { Problem } from '../http/problem.ts';
import { IdempotencyKeyReusedError, StorageError } from '../storage/errors.ts';
import { CLINICAL_SCOPE } from '../auth/acting-staff.ts';
import type { Idempotency } from '../storage/transaction.ts';
import { getNote } from '../storage/clinical-repository.ts';
import { getPluginGrants } from '../storage/plugins-repository.ts';
import { createCommand } from '../commands/create.ts';
import { updateCommand } from '../commands/update.ts';
import { commitCommand } from '../commands/commit.ts';
import { deleteCommand } from '../commands/delete.ts';
import { enterInError } from '../commands/enter-in-error.ts';
import { getCommand } from '../commands/get.ts';
import { addBannerAlert } from '../chart/add-banner-alert.ts';
import { removeBannerAlert } from '../chart/remove-banner-alert.ts';
import { upsertPatientMetadata } from '../patients/upsert-metadata.ts';
import { deletePatientMetadata } from '../patients/delete-metadata.ts';
import type { JsonObject } from './sandbox/types.ts';
import type { ActiveHandler, HandlerCalls } from './calls.ts';
import type { PluginRuntime } from './types.ts';
import { parseEffect, type Effect } from './effect-payloads.ts';
import { effectsWithinLimits } from './effect-limits.ts';
import { storedGrants, type Grant } from './grants.ts';

export interface EffectEnv {
  storage: Storage;
  logs: LogBus;
  signals: Signals;
  runtime: PluginRuntime;
  calls: HandlerCalls;
  /** The effects one chain of changes may apply (CHARTA_PLUGIN_EFFECTS_PER_CHANGE). */
  effectsPerChange: number;
}

export interface EffectSource {
  /** The event's id. */
  id: string;
  type: string;
  depth: number;
  requestId: string;
  /** The event at the root of its chain of changes (`plugin_events.root_id`): the budget is counted per root. */
  root: string;
  /** The patient the event is about (`context.patient.key`); null for an event about none. */
  patient: string | null;
  /** A tick of a schedule: the tick, ISO 8601 (its lines carry it). */
  tick?: string;
}

/** The staff-like user key a plugin acts as (originated_by, edited_by, the audit). */
export const pluginActor = (plugin: string): string => `plugin:${plugin}`;

/** The principal a plugin's operations run as (its effects, its reads): its own user, with the clinical scope. */
export const pluginPrincipal = (plugin: string): Ctx['principal'] => {
  const key = pluginActor(plugin);
  return { kind: 'token', staffKey: key, credential: key, scopes: [CLINICAL_SCOPE] };
};

/** The operation context of a plugin's effects: its own user, one level deeper in the same chain of events. */
function pluginCtx(env: EffectEnv, plugin: string, source: EffectSource): Ctx {
  return {
    storage: env.storage,
    principal: pluginPrincipal(plugin),
    requestId: source.requestId,
    logs: env.logs,
    signals: env.signals,
    runtime: env.runtime,
    eventDepth: source.depth + 1,
    eventRoot: source.root,
  };
}

/** Whose effects they are, and what one answer's effects may touch (docs/plugins.md, "Grants"). */
interface Reach {
  /** The plugin: its banner alerts are its own, and its name is the namespace of its patient metadata. */
  plugin: string;
  /** The plugin's user (`plugin:<name>`): the commands it originated are its own. */
  actor: string;
  /** The event's patient; null when the event is about none. */
  patient: string | null;
  grants: readonly Grant[];
}

/** An effect outside the plugin's reach: refused before its operation runs. */
class Refused extends Error {}

/** The reach check and operation of one effect type: `effect` is that type's. */
type Operation<S extends Effect['step']> = (ctx: Ctx, reach: Reach, effect: Effect & { step: S }, idempotency: Idempotency) => Promise<unknown>;

/**
 * Each effect type and the operation that applies it, after its reach check. A command's kind
 * (the `PLAN` of `COMMIT_PLAN_COMMAND`) is the operation's precondition, checked on the locked row.
 */
const OPERATIONS: { [S in Effect['step']]: Operation<S> } = {
  originate: async (ctx, reach, effect, idempotency) => {
    await noteInReach(ctx, reach, effect.note);
    const created = await createCommand(ctx, { schemaKey: effect.kind, noteKey: effect.note, values: effect.data }, idempotency);
    if (effect.commit) await commitCommand(ctx, created.body.uuid, {}, { ...idempotency, key: `${idempotency.key}:commit` });
  },
  edit: async (ctx, reach, effect, idempotency) => {
    await commandInReach(ctx, reach, effect.command);
    await updateCommand(ctx, effect.command, effect.data, { kind: effect.kind }, idempotency);
  },
  commit: async (ctx, reach, effect, idempotency) => {
    await commandInReach(ctx, reach, effect.command);
    await commitCommand(ctx, effect.command, { kind: effect.kind }, idempotency);
  },
  delete: async (ctx, reach, effect, idempotency) => {
    await commandInReach(ctx, reach, effect.command);
    await deleteCommand(ctx, effect.command, { kind: effect.kind }, idempotency);
  },
  'enter-in-error': async (ctx, reach, effect, idempotency) => {
    await commandInReach(ctx, reach, effect.command);
    await enterInError(ctx, effect.command, { kind: effect.kind }, idempotency);
  },
  'add-banner': async (ctx, reach, { patient, key, narrative, placement, intent }, idempotency) => {
    patientInReach(reach, patient);
    await addBannerAlert(ctx, { patient, plugin: reach.plugin, key, narrative, placement, intent }, idempotency);
  },
  'remove-banner': async (ctx, reach, { patient, key }, idempotency) => {
    patientInReach(reach, patient);
    await removeBannerAlert(ctx, { patient, plugin: reach.plugin, key }, idempotency);
  },
  // Patient metadata reaches as far as a banner: the event's patient unless effects:instance.
  // The namespace is always the plugin's own; no grant widens it (docs/plugins.md, "Patient metadata").
  'upsert-metadata': async (ctx, reach, { patient, key, value }, idempotency) => {
    patientInReach(reach, patient);
    await upsertPatientMetadata(ctx, { patient, namespace: reach.plugin, key, value }, idempotency);
  },
  'delete-metadata': async (ctx, reach, { patient, key }, idempotency) => {
    patientInReach(reach, patient);
    await deletePatientMetadata(ctx, { patient, namespace: reach.plugin, key }, idempotency);
  },
};

export async function applyEffects(env: EffectEnv, handler: ActiveHandler, source: EffectSource, effects: JsonObject[]): Promise<void> {
  const fail = (what: string) => env.calls.failure(handler, source.type, source.requestId, what, 'effect', source.tick);
  const grants = storedGrants((await getPluginGrants(env.storage.reader, handler.plugin))?.grants); // once per answer, not per effect
  const count = await effectsWithinLimits(
    env.storage,
    { effects: effects.length, perAnswer: handler.effectsPerAnswer, root: source.root, perChange: env.effectsPerChange },
    fail,
  );
  const ctx = pluginCtx(env, handler.plugin, source);
  const reach: Reach = { plugin: handler.plugin, actor: pluginActor(handler.plugin), patient: source.patient, grants };
  for (const [index, raw] of effects.slice(0, count).entries()) {
    const what = `effect ${index} (${typeof raw.type === 'string' ? raw.type.slice(0, 64) : 'no type'})`;
    const effect = parseEffect(raw);
    if (typeof effect === 'string') {
      fail(`${what} was not applied: ${effect}`);
      continue;
    }
    const idempotency: Idempotency = { key: `plugin-effect:${source.id}:${handler.id}:${source.type}:${index}`, request: raw };
    try {
      await (OPERATIONS[effect.step] as Operation<Effect['step']>)(ctx, reach, effect, idempotency);
    } catch (err) {
      if (err instanceof Refused) {
        fail(`${what} was refused: ${err.message}`);
        continue;
      }
      // Storage failing is not the effect's fault: it ends the answer, and the delivery gives the
      // event again (the effects applied already are not applied twice: their keys).
      if (err instanceof StorageError && !(err instanceof IdempotencyKeyReusedError)) throw err;
      const reason =
        err instanceof Problem
          ? `${err.status} ${err.code}: ${err.errors?.length ? err.errors.map((e) => `${e.field} ${e.message}`).join('; ') : err.detail}`
          : err instanceof Error
            ? err.message
            : String(err);
      fail(`${what} was not applied: ${reason}`);
    }
  }
}

/** What an effect lacks to reach something, and the grant that would let it. */
interface Missing {
  why: string;
  grant: Grant;
}

/** Throws Refused naming everything the effect lacks (and the grants that would allow it), if anything. */
function refuseUnless(subject: string, missing: Array<Missing | undefined>): void {
  const lacking = missing.filter((m): m is Missing => m !== undefined);
  if (lacking.length === 0) return;
  const grants = lacking.map((m) => m.grant);
  const allows = grants.length === 1 ? `the grant ${grants[0]} allows it` : `the grants ${grants.join(' and ')} allow it`;
  throw new Refused(`${subject} ${lacking.map((m) => m.why).join(' and ')} (${allows})`);
}

/** Whether something of `patient` is out of the reach: another patient than the event's, or any when the event has none. */
function patientReach(reach: Reach, patient: string, another: string, noneOfEvent: string): Missing | undefined {
  if (reach.grants.includes('effects:instance') || (reach.patient !== null && patient === reach.patient)) return undefined;
  return { why: reach.patient === null ? noneOfEvent : another, grant: 'effects:instance' };
}

/** A banner alert's (or a patient metadata pair's) patient must be the event's. */
function patientInReach(reach: Reach, patient: string): void {
  refuseUnless(`patient ${patient}`, [patientReach(reach, patient, "is not the event's patient", "is not the event's patient: the event is about none")]);
}

const RECORD_OF_ANOTHER = "belongs to another patient than the event's";
const RECORD_OF_NONE = 'belongs to a patient, and the event is about none';

/** The stored note an originate names must be the event's patient's (a missing note is the operation's 400). */
async function noteInReach(ctx: Ctx, reach: Reach, uuid: string): Promise<void> {
  if (reach.grants.includes('effects:instance')) return;
  const note = await getNote(ctx.storage.reader, uuid);
  if (note !== undefined) refuseUnless(`note ${uuid}`, [patientReach(reach, note.patient_key, RECORD_OF_ANOTHER, RECORD_OF_NONE)]);
}

/**
 * The stored command an effect names must be within the reach (the event's patient's, originated
 * by the plugin, unless granted). Its patient and originator never change, so the operation that
 * follows acts on what was checked. That it is of the effect's kind (`COMMIT_PLAN_COMMAND` commits
 * a plan) the operation checks on the locked row, inside its write (commands/rules.ts, `Preconditions`).
 */
async function commandInReach(ctx: Ctx, reach: Reach, uuid: string): Promise<void> {
  const command = await getCommand(ctx, uuid);
  refuseUnless(`command ${uuid}`, [
    patientReach(reach, command.patient_key, RECORD_OF_ANOTHER, RECORD_OF_NONE),
    command.originated_by === reach.actor || reach.grants.includes('effects:any-command')
      ? undefined
      : { why: 'was not originated by this plugin', grant: 'effects:any-command' },
  ]);
}
