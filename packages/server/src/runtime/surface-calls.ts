// Calls that are not about a record's change (docs/plugins.md, "HTTP routes", "Scheduled tasks"):
// a request to a plugin's route and a tick of its schedule each go to the one handler that
// declared it, through the same calls as an event (runtime/calls.ts: limits, log lines, faults),
// and the effects of its answer are applied as a POST handler's (runtime/effects.ts: the plugin
// as actor, the audit, the reach, idempotency keyed by the request's or the tick's id). A route's
// answer carries its response in a ROUTE_RESPONSE_EFFECT first; nothing else may.
import { ROUTE_EVENT, ROUTE_RESPONSE_EFFECT, TICK_EVENT } from '@charta/api/constants';
import type { JsonObject, JsonValue } from './sandbox/types.ts';
import { describeOutcome, type ActiveHandler, type HandlerCalls } from './calls.ts';
import { applyEffects, type EffectEnv } from './effects.ts';
import type { HandlerIndex } from './plugins.ts';
import type { DeclaredRoute } from './surface.ts';

/** A route's handler answered: the response it asked for (not checked yet: the HTTP side checks it), its effects applied. */
export type RouteCallAnswer = { ok: true; response: JsonValue } | { ok: false; why: string; unavailable: boolean };

/** A route of an enabled plugin on this process, with its handler. */
export interface ServedRoute {
  handler: ActiveHandler;
  route: DeclaredRoute;
}

export class SurfaceCalls {
  constructor(
    private readonly handlers: HandlerIndex,
    private readonly calls: HandlerCalls,
    private readonly effects: Omit<EffectEnv, 'calls'>,
  ) {}

  /** The routes of `plugin` while it is enabled on this process (undefined: not enabled here). */
  routesOf(plugin: string): ServedRoute[] | undefined {
    const handlers = this.handlers.handlersOf(ROUTE_EVENT).filter((h) => h.plugin === plugin);
    if (handlers.length === 0) return undefined;
    return handlers.flatMap((handler) => handler.routes.map((route) => ({ handler, route })));
  }

  /** The handlers with a schedule, of every plugin enabled on this process. */
  scheduled(): ActiveHandler[] {
    return this.handlers.handlersOf(TICK_EVENT).filter((h) => h.schedule !== null);
  }

  /**
   * One request: the handler's response, after its other effects were applied (or why there is
   * none). `check` says why the response cannot be sent (null when it can): a response that
   * cannot be sent applies nothing.
   */
  async route(handler: ActiveHandler, event: JsonObject, requestId: string, check: (response: JsonValue) => string | null): Promise<RouteCallAnswer> {
    const answer = await this.calls.call(handler, ROUTE_EVENT, event, requestId, '; the request answered 502');
    if (!answer.ok) return { ok: false, why: describeOutcome(answer.fault), unavailable: answer.fault.kind === 'unavailable' };
    const [first, ...rest] = answer.effects;
    const bad = (why: string) => {
      this.calls.failure(handler, ROUTE_EVENT, requestId, `${why}; the request answered 502`, 'invalid-result');
      return { ok: false as const, why, unavailable: false };
    };
    if (first === undefined || first.type !== ROUTE_RESPONSE_EFFECT) return bad(`answered no response (its first effect must be ${ROUTE_RESPONSE_EFFECT})`);
    if (rest.some((e) => e.type === ROUTE_RESPONSE_EFFECT)) return bad('answered more than one response');
    const route = (event.target as JsonObject | undefined)?.id;
    const unsendable = check(first.payload ?? null);
    if (unsendable !== null) return bad(`answered a response to ${String(route)} that cannot be sent: ${unsendable}`);
    if (rest.length > 0) {
      try {
        await applyEffects(
          { ...this.effects, calls: this.calls },
          handler,
          { id: requestId, type: ROUTE_EVENT, depth: 0, requestId, root: requestId, patient: null },
          rest,
        );
      } catch (err) {
        const why = `its effects could not be applied: ${err instanceof Error ? err.message : String(err)}`;
        this.calls.failure(handler, ROUTE_EVENT, requestId, `${why}; the request answered 503`, 'effect');
        return { ok: false, why, unavailable: true };
      }
    }
    return { ok: true, response: first.payload ?? null };
  }

  /** One tick (`tick`: its time, ISO 8601): null when it ran (its effects applied), else what failed (logged). */
  async tick(handler: ActiveHandler, event: JsonObject, tickId: string, tick: string): Promise<string | null> {
    const answer = await this.calls.call(handler, TICK_EVENT, event, tickId, '; it runs again at its next tick');
    if (!answer.ok) return answer.fault.kind;
    if (answer.effects.length === 0) return null;
    try {
      await applyEffects(
        { ...this.effects, calls: this.calls },
        handler,
        { id: tickId, type: TICK_EVENT, depth: 0, requestId: tickId, root: tickId, patient: null, tick },
        answer.effects,
      );
      return null;
    } catch (err) {
      const why = `its effects could not be applied: ${err instanceof Error ? err.message : String(err)}; it runs again at its next tick`;
      this.calls.failure(handler, TICK_EVENT, tickId, why, 'effect', tick);
      return 'effect';
    }
  }
}
