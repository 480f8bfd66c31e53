// Event dispatch (docs/plugins.md, "Events" and "Delivery and guarantees"): a PRE event inside its
// change's write transaction (a command's, a note's or a patient's), to every handler of it under
// the PRE budget, with each handler's on_failure policy (validation errors refuse the change); an
// after-search event of an autocomplete field, whose handlers may reorder, filter or annotate the
// options. The handlers come from the plugin registry (runtime/plugins.ts); POST events go
// through the outbox (runtime/outbox.ts) and delivery (runtime/delivery.ts) instead.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { problem, type FieldProblem } from '../http/problem.ts';
import { RETRY_AFTER_SECONDS } from '../http/storage-errors.ts';
import type { OptionDoc } from '../autocomplete/types.ts';
import type { CommandChangeEvent, EventActor, NoteChangeEvent, PatientChangeEvent, PluginRuntime } from './types.ts';
import type { JsonObject } from './sandbox/types.ts';
import { commandSubject, newEventId, noteSubject, patientSubject, renamed, searchEventName, type ChangeSubject } from './events.ts';
import { describeOutcome, type ActiveHandler, type HandlerCalls } from './calls.ts';
import { validationErrors, searchResults } from './effect-payloads.ts';
import type { HandlerIndex } from './plugins.ts';

export interface DispatchOptions {
  /** Total time of the handlers of one PRE or after-search event. */
  preBudgetMs: number;
}

/** PRE decisions kept for a write that runs again (storage/group-commit.ts): the most recent ones. */
const DECISIONS_KEPT = 1000;

export class Dispatch implements Pick<PluginRuntime, 'pre' | 'preNote' | 'prePatient' | 'afterSearch'> {
  /**
   * Recent PRE decisions, by write: a write run again with the same change is not checked twice.
   * What the change is about (`ChangeSubject.about`, but for the times a run sets) is compared
   * only when the write runs again.
   */
  private readonly decisions = new Map<number, { subject: ChangeSubject; decision: Promise<void> }>();

  constructor(
    private readonly handlers: Pick<HandlerIndex, 'handlersOf'>,
    private readonly calls: HandlerCalls,
    private readonly options: DispatchOptions,
  ) {}

  private handlersOf(type: string): ActiveHandler[] {
    return this.handlers.handlersOf(type);
  }

  /** The PRE events of a command change (`PLAN_COMMAND__PRE_COMMIT`, then `PRE_COMMAND_COMMIT`). */
  pre(_trx: Kysely<Database>, change: CommandChangeEvent, actor: EventActor): Promise<void> {
    return this.preOf(commandSubject(change, 'PRE'), actor);
  }

  /** The PRE event of a note change (`NOTE_PRE_LOCK`…). */
  preNote(_trx: Kysely<Database>, change: NoteChangeEvent, actor: EventActor): Promise<void> {
    return this.preOf(noteSubject(change, 'PRE'), actor);
  }

  /** The PRE event of a patient change (`PATIENT_PRE_CREATE`…). */
  prePatient(_trx: Kysely<Database>, change: PatientChangeEvent, actor: EventActor): Promise<void> {
    return this.preOf(patientSubject(change, 'PRE'), actor);
  }

  /**
   * The PRE event of a change. A write set aside by the SQLite group commit while its check ran
   * runs again once the check has settled (docs/plugins.md, "Delivery and guarantees"): the same
   * change of the same request gets the decision already made, without calling the handlers again.
   */
  private preOf(subject: ChangeSubject, actor: EventActor): Promise<void> {
    const targets = subject.names.flatMap((type) => this.handlersOf(type).map((handler) => ({ type, handler })));
    if (targets.length === 0) return Promise.resolve();
    const write = actor.write;
    const known = write === undefined ? undefined : this.decisions.get(write);
    if (known !== undefined && known.subject.about() === subject.about()) return known.decision;
    const decision = this.decide(subject, targets, actor);
    if (write !== undefined) {
      decision.catch(() => undefined);
      this.decisions.delete(write);
      this.decisions.set(write, { subject, decision });
      if (this.decisions.size > DECISIONS_KEPT) this.decisions.delete(this.decisions.keys().next().value!);
    }
    return decision;
  }

  private async decide(subject: ChangeSubject, targets: Array<{ type: string; handler: ActiveHandler }>, actor: EventActor): Promise<void> {
    const base = subject.event(newEventId(), subject.names[0]!, actor);
    const { type: what, id } = subject.target;
    const deadline = Date.now() + this.options.preBudgetMs;
    const errors: FieldProblem[] = [];
    const unchecked: FieldProblem[] = [];
    for (const { type, handler } of targets) {
      // No PRE check is skipped in silence: each failure says what it does to the change (docs/plugins.md, "Delivery and guarantees").
      const consequence = `; the change to ${what} ${id} ${handler.onFailure === 'refuse' ? 'is refused (on_failure: refuse)' : 'goes ahead (on_failure: allow)'}`;
      if (Date.now() >= deadline) {
        const skipped = `was skipped: the ${this.options.preBudgetMs} ms budget of ${type} was spent`;
        this.calls.failure(handler, type, actor.requestId, `${skipped}${consequence}`, 'skipped');
        if (handler.onFailure === 'refuse') unchecked.push({ field: what, message: `handler ${handler.id} ${skipped}`, plugin: handler.plugin });
        continue;
      }
      const answer = await this.calls.call(handler, type, renamed(base, type), actor.requestId, consequence);
      // A check that could not read the record because the database is away: the change cannot be
      // written either, whatever the handler's on_failure (docs/plugins.md, "Reading the record").
      if (!answer.ok && 'database' in answer.fault) {
        throw problem('database_unavailable', {
          detail: `plugin ${handler.plugin} could not read the record for its check (${answer.fault.message}); nothing was written`,
          headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
        });
      }
      if (!answer.ok) {
        if (handler.onFailure === 'refuse')
          unchecked.push({ field: what, message: `handler ${handler.id} ${describeOutcome(answer.fault)}`, plugin: handler.plugin });
        continue;
      }
      for (const [index, effect] of answer.effects.entries()) {
        if (effect.type === 'EVENT_VALIDATION_ERROR') {
          const checked = validationErrors(effect);
          if (typeof checked === 'string')
            this.calls.failure(handler, type, actor.requestId, `effect ${index} (EVENT_VALIDATION_ERROR) is malformed: ${checked}`, 'effect');
          else for (const e of checked) errors.push({ field: e.field ?? what, message: e.message, plugin: handler.plugin });
        } else {
          this.calls.failure(
            handler,
            type,
            actor.requestId,
            `effect ${index} (${String(effect.type)}) was not applied: a PRE event takes only EVENT_VALIDATION_ERROR`,
            'effect',
          );
        }
      }
    }
    if (errors.length > 0) {
      const detail = `Refused by ${[...new Set(errors.map((e) => e.plugin))].join(', ')}: ${errors.map((e) => e.message).join('; ')}`;
      throw problem('plugin_validation_failed', { detail, errors });
    }
    if (unchecked.length > 0) {
      const detail = `Refused: ${[...new Set(unchecked.map((e) => e.plugin))].join(', ')} must check this change and could not (${unchecked.map((e) => e.message).join('; ')}); nothing was written`;
      throw problem('plugin_unavailable', { detail, errors: unchecked });
    }
  }

  async afterSearch(search: { schemaKey: string; field: string; term: string; options: OptionDoc[] }, actor: EventActor): Promise<OptionDoc[]> {
    const type = searchEventName(search.schemaKey, search.field);
    const handlers = this.handlersOf(type);
    if (handlers.length === 0) return search.options;
    const deadline = Date.now() + this.options.preBudgetMs;
    let options = search.options;
    for (const handler of handlers) {
      if (Date.now() >= deadline) {
        this.calls.failure(handler, type, actor.requestId, `skipped: the ${this.options.preBudgetMs} ms budget of ${type} was spent`, 'skipped');
        continue;
      }
      const event: JsonObject = {
        id: newEventId(),
        type,
        target: { id: `${search.schemaKey}.${search.field}`, type: 'field' },
        context: { schema_key: search.schemaKey, field: search.field, search_term: search.term, results: options as unknown as JsonObject[] },
        actor: { id: actor.staffKey },
        depth: actor.depth,
      };
      const called = await this.calls.call(handler, type, event, actor.requestId);
      const answer = (called.ok ? called.effects : []).find((e) => e.type === 'AUTOCOMPLETE_SEARCH_RESULTS');
      if (answer === undefined) continue;
      const next = searchResults(answer, options);
      if (typeof next === 'string') this.calls.failure(handler, type, actor.requestId, `AUTOCOMPLETE_SEARCH_RESULTS was not applied: ${next}`, 'effect');
      else options = next;
    }
    return options;
  }
}
