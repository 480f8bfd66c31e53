// The log stream lines of the plugin API's writes (docs/api.md, "Log stream"), emitted AFTER the
// write transaction has committed, and of refused package uploads. The log stream is a sink:
// nothing reacts to these words (changes reach the runtime as signals: plugins/signal.ts).
import type { Ctx } from '../context.ts';
import { Problem } from '../http/problem.ts';
import type { PluginView } from './representation.ts';

export type PluginAction = 'installed' | 'updated' | 'enabled' | 'disabled' | 'deleted';

/** "plugin vitals-alert 1.2.0 updated (enabled)" */
export function logPlugin(ctx: Ctx, action: PluginAction, name: string, view?: PluginView): void {
  if (ctx.logs === undefined) return;
  const detail = view === undefined ? '' : ` ${view.version}`;
  const state = view === undefined || action === 'enabled' || action === 'disabled' ? '' : ` (${view.is_enabled ? 'enabled' : 'disabled'})`;
  ctx.logs.emit({ level: 'info', event: `plugin ${name}${detail} ${action}${state}`, plugin: name, request_id: ctx.requestId });
}

/** "plugin vitals-alert: dead letter 12 (dist/handlers.js:Alert on PLAN_COMMAND__POST_COMMIT) replayed" */
export function logDeadLetter(ctx: Ctx, action: 'replayed' | 'discarded', letter: { id: number; plugin: string; handler: string; event_type: string }): void {
  if (ctx.logs === undefined) return;
  ctx.logs.emit({
    level: 'info',
    event: `plugin ${letter.plugin}: dead letter ${letter.id} (${letter.handler} on ${letter.event_type}) ${action}`,
    plugin: letter.plugin,
    handler: letter.handler,
    event_type: letter.event_type,
    request_id: ctx.requestId,
  });
}

/** A refused package upload, logged as a warning with every reason; returns the refusal. */
export function rejected(ctx: Ctx, name: string | undefined, err: unknown): unknown {
  if (ctx.logs !== undefined && err instanceof Problem && err.status < 500) {
    const reasons = err.errors?.length ? err.errors.map((e) => e.message).join('; ') : err.detail;
    ctx.logs.emit({
      level: 'warning',
      event: `plugin package ${name === undefined ? '' : `for ${name} `}rejected (${err.code}): ${reasons}`,
      ...(name === undefined ? {} : { plugin: name }),
      request_id: ctx.requestId,
    });
  }
  return err;
}

/** For `.catch(…)`: logs a refused package upload and rethrows it. */
export function logRejected(ctx: Ctx, name: string | undefined) {
  return (err: unknown): never => {
    throw rejected(ctx, name, err);
  };
}
