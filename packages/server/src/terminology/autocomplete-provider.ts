// Options from the terminologies: concepts of the field's systems, searched by code and words;
// a picked option must name an active concept of one of them, or be free text (UNSTRUCTURED).
// Registered with the autocomplete framework when the app is assembled (src/autocomplete-providers.ts).
import { CodeSystems } from '@charta/api/constants';
import { findConcept } from '../storage/concepts-repository.ts';
import { listChartRows } from '../storage/chart-repository.ts';
import { searchConcepts, toConcept, type Concept } from './search.ts';
import { matchesAllWords, normalizeText, parseSearchTerm } from './normalize.ts';
import { codingsOf, optionDoc, unstructuredOption } from '../autocomplete/option.ts';
import type { OptionDoc, OptionProvider, OptionProviders, OptionSource, SourceContext } from '../autocomplete/types.ts';

type TerminologySource = Extract<OptionSource, { kind: 'terminology' }>;

const MAX_FREE_TEXT = 500;

/** A concept as an option: its display, its code as the value and as an annotation. */
export function conceptOption(concept: Concept): OptionDoc {
  return optionDoc(concept.display, concept.code, [{ code: concept.code, display: concept.display, system: concept.system }], { annotations: [concept.code] });
}

/** What marks a patient's active condition among the options (docs/api.md, "Autocomplete"). */
export const ON_THE_CHART = 'Active condition on the chart';

/** The patient's active conditions coded in the field's systems that match every word of the term (all of them for ''). */
async function chartConditions(source: TerminologySource, ctx: SourceContext, term: string): Promise<OptionDoc[]> {
  const { words } = parseSearchTerm(term);
  const rows = await listChartRows(ctx.db, 'condition', ctx.patientKey, ['active']);
  return rows
    .filter((r) => source.systems.includes(r.system) && (words.length === 0 || matchesAllWords(normalizeText(`${r.display} ${r.code}`), words)))
    .map((r) => ({ ...conceptOption({ system: r.system, code: r.code, display: r.display, extra: null }), description: ON_THE_CHART }));
}

export const terminologyProvider: OptionProvider<TerminologySource> = {
  async search(source, ctx, term, limit) {
    const first = source.conditionsFirst === true ? (await chartConditions(source, ctx, term)).slice(0, limit) : [];
    const seen = new Set(first.map((o) => String(o.value)));
    const concepts = await searchConcepts(ctx.db, ctx.engine, source.systems, term, limit);
    return [...first, ...concepts.map(conceptOption).filter((o) => !seen.has(String(o.value)))].slice(0, limit);
  },

  async resolve(source, ctx, picked) {
    const codings = codingsOf(picked);
    const unstructured = codings.find((c) => c.system === CodeSystems.UNSTRUCTURED);
    if (unstructured !== undefined) {
      const text = (unstructured.display ?? unstructured.code).trim();
      if (text === '' || text.length > MAX_FREE_TEXT) return `free text (UNSTRUCTURED) must have 1 to ${MAX_FREE_TEXT} characters`;
      return unstructuredOption(text);
    }
    // Picked codings of the field's systems; without codings, the option's value as a code of any of them.
    const candidates =
      codings.length > 0 ? codings.filter((c) => source.systems.includes(c.system)) : source.systems.map((system) => ({ system, code: String(picked.value) }));
    for (const { system, code } of candidates) {
      const row = await findConcept(ctx.db, system, code);
      if (row !== undefined && row.active === 1) return conceptOption(toConcept(row));
      if (row !== undefined) return `${code} is no longer an active code of ${system}`;
    }
    const shown = candidates[0]?.code ?? String(picked.value);
    return `${JSON.stringify(shown)} is not a known code of ${source.systems.join(' or ')}`;
  },
};

/** The source kinds the terminologies provide. */
export const terminologyOptionProviders: Pick<OptionProviders, 'terminology'> = { terminology: terminologyProvider };
