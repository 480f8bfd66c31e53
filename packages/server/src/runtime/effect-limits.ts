// The breadth limits of effects (docs/plugins.md, "Breadth limits"): how many effects one answer
// of a handler may hold (DEFAULT_EFFECTS_PER_ANSWER, or what the plugin's manifest asks in
// `limits.effects_per_answer`, within the instance's CHARTA_PLUGIN_MAX_EFFECTS_PER_ANSWER), and how
// many the whole chain of changes one client change sets off may apply, all plugins together
// (CHARTA_PLUGIN_EFFECTS_PER_CHANGE). The rest of an answer past either is refused.
import type { Storage } from '../storage/db.ts';
import { reserveEffects } from '../storage/plugin-effect-budgets-repository.ts';
import { nowMicros } from '../lib/time.ts';

/** Effects one answer may hold when the manifest asks nothing. */
export const DEFAULT_EFFECTS_PER_ANSWER = 100;
/** CHARTA_PLUGIN_MAX_EFFECTS_PER_ANSWER unset. */
export const DEFAULT_MAX_EFFECTS_PER_ANSWER = 1000;
/** CHARTA_PLUGIN_EFFECTS_PER_CHANGE unset. */
export const DEFAULT_EFFECTS_PER_CHANGE = 1000;

export interface EffectLimits {
  /** The most effects per answer a manifest may ask for (CHARTA_PLUGIN_MAX_EFFECTS_PER_ANSWER). */
  maxPerAnswer: number;
  /** The effects one chain of changes may apply (CHARTA_PLUGIN_EFFECTS_PER_CHANGE). */
  perChange: number;
}

/** A plugin's effects per answer: what its manifest asks, or the default, never over the instance's maximum. */
export const effectsPerAnswer = (asked: number | undefined, maxPerAnswer: number): number => Math.min(asked ?? DEFAULT_EFFECTS_PER_ANSWER, maxPerAnswer);

/** One answer as its limits see it: how many effects it holds, its plugin's limit per answer, the chain it belongs to and that chain's budget. */
export interface AnswerToLimit {
  effects: number;
  perAnswer: number;
  /** The event at the root of the chain of changes (`plugin_events.root_id`). */
  root: string;
  perChange: number;
}

/**
 * How many of the answer's first effects may be applied: at most its limit per answer, then what
 * still fits its chain's budget. What it holds up to its limit is reserved against the budget in
 * one statement (a transaction of its own), so answers delivered at once, on one process or
 * several, count exactly. `refused` is told of the rest: once past the limit per answer, and once
 * per chain, by the answer whose reservation crosses the budget.
 */
export async function effectsWithinLimits(storage: Storage, answer: AnswerToLimit, refused: (what: string) => void): Promise<number> {
  const { effects, perAnswer, root, perChange } = answer;
  let count = effects;
  if (count > perAnswer) {
    refused(`${theRest(perAnswer, effects)} refused: an answer may hold at most ${perAnswer} effects (this plugin's limit per answer)`);
    count = perAnswer;
  }
  if (count === 0) return 0;
  const used = await storage.transact((trx) => reserveEffects(trx, root, count, nowMicros()));
  const before = used - count;
  const fits = Math.max(0, Math.min(count, perChange - before));
  // Only the answer whose reservation crosses the budget says so: one line per chain.
  if (fits < count && before <= perChange) {
    refused(
      `${theRest(fits, effects, count)} refused: the chain of changes that event ${root} began has spent its budget of ${perChange} effects (CHARTA_PLUGIN_EFFECTS_PER_CHANGE)`,
    );
  }
  return fits;
}

/** "effects 100 to 120 (21 of the answer's 121) were", "effect 7 (of the answer's 8) was". */
function theRest(from: number, total: number, end = total): string {
  return end - from === 1 ? `effect ${from} (of the answer's ${total}) was` : `effects ${from} to ${end - 1} (${end - from} of the answer's ${total}) were`;
}
