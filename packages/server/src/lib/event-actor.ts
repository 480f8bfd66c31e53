// Who caused a change's plugin events (docs/plugins.md, "Events"): the one shape the event ports
// of commands/, notes/ and patients/ (each feature's plugin-events.ts) hand the runtime. It lives
// in lib/, below every feature, so that no feature imports another for it.

/** Who caused an event, and how deep in a chain of plugin effects it is. */
export interface EventActor {
  /** The staff key (a plugin's own key, `plugin:<name>`, when a plugin's effect caused it). */
  staffKey: string;
  requestId: string;
  /** 0 for a change a client asked for; n + 1 for a change made by an effect of an event at depth n. */
  depth: number;
  /** The write the change is made by, the same in every run of it (storage/transaction.ts `writeId`). */
  write?: number;
  /**
   * The root event of the chain a plugin's effect belongs to (its event's root); absent for a
   * client's change, whose own event is the root (docs/plugins.md, "Breadth limits").
   */
  rootId?: string;
}

/** The actor of a change made by the write `write` for an operation's request (its Ctx: src/context.ts). */
export function eventActor(ctx: { requestId: string; eventDepth?: number; eventRoot?: string }, staffKey: string, write: number): EventActor {
  return { staffKey, requestId: ctx.requestId, depth: ctx.eventDepth ?? 0, rootId: ctx.eventRoot, write };
}
