// The breadth limits of effects (docs/plugins.md, "Breadth limits"): how many effects one answer
// of a handler may hold (DEFAULT_EFFECTS_PER_ANSWER, or what the plugin's manifest asks in
// `limits.effects_per_answer`, within the instance's CHARTA_PLUGIN_MAX_EFFECTS_PER_ANSWER), and how
// many the whole chain of changes one client change sets off may apply, all plugins together
// (CHARTA_PLUGIN_EFFECTS_PER_CHANGE). The rest of an answer past either is refused.
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
