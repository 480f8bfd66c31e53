// The options of AutocompleteFields: searching them (the autocomplete endpoint) and replacing
// each picked value by the stored form of a real option (create and PATCH, inside their
// transaction), or naming the field it is not an option of.
import type { FieldProblem } from '../http/problem.ts';
import type { CodedField, OptionDoc, OptionProvider, OptionProviders, OptionSource, PickedOption, SourceContext } from './types.ts';

export type { CodedField, OptionDoc, OptionProviders, OptionSource, SourceContext } from './types.ts';
export { toWire } from './option.ts';

// The providers of this process, one per source kind, registered by the features that own the
// data when the app is assembled (src/autocomplete-providers.ts). The framework imports none of them.
const providers: Partial<Record<OptionSource['kind'], OptionProvider>> = {};

/** Registers the providers of some source kinds (a later registration of a kind replaces an earlier one). */
export function registerOptionProviders(some: Partial<OptionProviders>): void {
  Object.assign(providers, some);
}

function providerOf(source: OptionSource): OptionProvider {
  const provider = providers[source.kind];
  if (provider === undefined) throw new Error(`no autocomplete provider is registered for the source kind '${source.kind}'`);
  return provider;
}

/** The field whose value a source's options depend on (the lab partner of tests, the material of a language). */
export function dependsOn(source: OptionSource): string | undefined {
  if (source.kind === 'labTest') return source.partnerField;
  if (source.kind === 'materialLanguage') return source.materialField;
  return undefined;
}

/** Options for a field (which must have a source), best first. */
export function searchOptions(field: CodedField & { source: OptionSource }, ctx: SourceContext, term: string, limit: number): Promise<OptionDoc[]> {
  return providerOf(field.source).search(field.source, ctx, term, limit);
}

/**
 * Replaces every autocomplete value in `values` (already shape-checked by validateValues) by the
 * stored form of the option it names. Returns the values, or an error per value that is not an
 * option of its field.
 */
export async function resolveOptions(
  kind: { readonly fields: readonly CodedField[] },
  values: Record<string, unknown>,
  ctx: SourceContext,
): Promise<{ ok: true; values: Record<string, unknown> } | { ok: false; errors: FieldProblem[] }> {
  const errors: FieldProblem[] = [];
  const out: Record<string, unknown> = { ...values };
  for (const field of kind.fields) {
    const raw = values[field.name];
    if (field.source === undefined || raw === undefined || raw === null) continue;
    const provider = providerOf(field.source);
    const one = async (picked: PickedOption, path: string): Promise<OptionDoc | undefined> => {
      const resolved = await provider.resolve(field.source!, ctx, picked);
      if (typeof resolved === 'string') {
        errors.push({ field: path, message: `not an option of ${field.name}: ${resolved}` });
        return undefined;
      }
      return resolved;
    };
    if (field.multiple === true) {
      const picked = raw as PickedOption[];
      const resolved: OptionDoc[] = [];
      const seen = new Set<string>();
      for (const [i, item] of picked.entries()) {
        const doc = await one(item, `values.${field.name}[${i}]`);
        if (doc === undefined) continue;
        const key = JSON.stringify(doc.extra.coding);
        if (seen.has(key)) errors.push({ field: `values.${field.name}[${i}]`, message: `the same option as an earlier item (${doc.text})` });
        seen.add(key);
        resolved.push(doc);
      }
      out[field.name] = resolved;
    } else {
      out[field.name] = await one(raw as PickedOption, `values.${field.name}`);
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, values: out };
}
