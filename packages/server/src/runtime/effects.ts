// Applying the effects of a POST event (docs/plugins.md, "Effects"): each goes through the same
// operation as the API (validation, state rules, audit, log stream), acting as the plugin's own
// user `plugin:<name>`, with an Idempotency-Key made of the event, the handler and the effect's
// index, so an event delivered twice applies each effect once. An effect that cannot be applied
// is an error line on the log stream, never dropped in silence.
import type { Ctx } from '../context.ts';
import type { Storage } from '../storage/db.ts';
import type { LogBus } from '../logs/bus.ts';
import { Problem } from '../http/problem.ts';
import { CLINICAL_SCOPE } from '../auth/acting-staff.ts';
import { writeTransaction, type Idempotency } from '../storage/transaction.ts';
import { getPatient } from '../storage/clinical-repository.ts';
import { removeBannerAlert, upsertBannerAlert } from '../storage/banner-alerts-repository.ts';
import { createCommand } from '../commands/create.ts';
import { updateCommand } from '../commands/update.ts';
import { commitCommand } from '../commands/commit.ts';
import { deleteCommand } from '../commands/delete.ts';
import { enterInError } from '../commands/enter-in-error.ts';
import { getCommand } from '../commands/get.ts';
import { nowMicros } from '../lib/time.ts';
import type { JsonObject } from './sandbox/types.ts';
import type { ActiveHandler, HandlerCalls } from './calls.ts';
import type { PluginRuntime } from './types.ts';
import { parseEffect, type Effect } from './effect-payloads.ts';

export interface EffectEnv {
  storage: Storage;
  logs: LogBus;
  runtime: PluginRuntime;
  calls: HandlerCalls;
}

export interface EffectSource {
  /** The event's id. */
  id: string;
  type: string;
  depth: number;
  requestId: string;
}

/** The staff-like user key a plugin acts as (originated_by, edited_by, the audit). */
export const pluginActor = (plugin: string): string => `plugin:${plugin}`;

/** The operation context of a plugin's effects: its own user, one level deeper in the chain of events. */
function pluginCtx(env: EffectEnv, plugin: string, source: EffectSource): Ctx {
  const key = pluginActor(plugin);
  return {
    storage: env.storage,
    principal: { kind: 'token', staffKey: key, credential: key, scopes: [CLINICAL_SCOPE] },
    requestId: source.requestId,
    logs: env.logs,
    runtime: env.runtime,
    eventDepth: source.depth + 1,
  };
}

export async function applyEffects(env: EffectEnv, handler: ActiveHandler, source: EffectSource, effects: JsonObject[]): Promise<void> {
  const ctx = pluginCtx(env, handler.plugin, source);
  for (const [index, raw] of effects.entries()) {
    const what = `effect ${index} (${typeof raw.type === 'string' ? raw.type.slice(0, 64) : 'no type'})`;
    const effect = parseEffect(raw);
    if (typeof effect === 'string') {
      env.calls.failure(handler, source.type, source.requestId, `${what} was not applied: ${effect}`);
      continue;
    }
    const idempotency: Idempotency = { key: `plugin-effect:${source.id}:${handler.id}:${source.type}:${index}`, request: raw };
    try {
      await apply(ctx, handler.plugin, effect, idempotency);
    } catch (err) {
      const reason =
        err instanceof Problem
          ? `${err.status} ${err.code}: ${err.errors?.length ? err.errors.map((e) => `${e.field} ${e.message}`).join('; ') : err.detail}`
          : String(err);
      env.calls.failure(handler, source.type, source.requestId, `${what} was not applied: ${reason}`);
    }
  }
}

async function apply(ctx: Ctx, plugin: string, effect: Effect, idempotency: Idempotency): Promise<void> {
  switch (effect.step) {
    case 'originate': {
      const created = await createCommand(ctx, { schemaKey: effect.kind, noteKey: effect.note, values: effect.data }, idempotency);
      if (effect.commit) await commitCommand(ctx, created.body.uuid, undefined, { ...idempotency, key: `${idempotency.key}:commit` });
      return;
    }
    case 'edit':
      await sameKind(ctx, effect.command, effect.kind);
      await updateCommand(ctx, effect.command, effect.data, undefined, idempotency);
      return;
    case 'commit':
      await sameKind(ctx, effect.command, effect.kind);
      await commitCommand(ctx, effect.command, undefined, idempotency);
      return;
    case 'delete':
      await sameKind(ctx, effect.command, effect.kind);
      await deleteCommand(ctx, effect.command, undefined, idempotency);
      return;
    case 'enter-in-error':
      await sameKind(ctx, effect.command, effect.kind);
      await enterInError(ctx, effect.command, undefined, idempotency);
      return;
    case 'add-banner':
    case 'remove-banner':
      await banner(ctx, plugin, effect, idempotency);
      return;
  }
}

/** An effect names the command's kind (`COMMIT_PLAN_COMMAND`): it must be the command's. */
async function sameKind(ctx: Ctx, uuid: string, kind: string): Promise<void> {
  const command = await getCommand(ctx, uuid);
  if (command.schema_key !== kind) throw new Error(`command ${uuid} is a ${command.schema_key} command, not ${kind}`);
}

async function banner(ctx: Ctx, plugin: string, effect: Extract<Effect, { step: 'add-banner' | 'remove-banner' }>, idempotency: Idempotency): Promise<void> {
  await writeTransaction(ctx, idempotency, async ({ trx, audit }) => {
    if ((await getPatient(trx, effect.patient)) === undefined) throw new Error(`patient ${effect.patient} does not exist`);
    const id = `${effect.patient}/${plugin}/${effect.key}`;
    if (effect.step === 'remove-banner') {
      await removeBannerAlert(trx, effect.patient, plugin, effect.key);
      await audit({ action: 'banner_alert.removed', entityType: 'banner_alert', entityId: id, before: null, after: null });
    } else {
      const now = nowMicros();
      const row = {
        patient_key: effect.patient,
        plugin_name: plugin,
        key: effect.key,
        narrative: effect.narrative,
        placement: JSON.stringify(effect.placement),
        intent: effect.intent,
        created_at: now,
        updated_at: now,
      };
      await upsertBannerAlert(trx, row);
      await audit({ action: 'banner_alert.added', entityType: 'banner_alert', entityId: id, before: null, after: { ...row, placement: effect.placement } });
    }
    return { status: 200, body: null };
  });
}
