// Building option documents and their wire form.
import { CodeSystems } from '@charta/api/constants';
import type { Coding, OptionDoc, PickedOption } from './types.ts';

/** The autocomplete answer's item: the display text and the document as a JSON string. */
export function toWire(doc: OptionDoc): { text: string; value: string } {
  return { text: doc.text, value: JSON.stringify(doc) };
}

export function optionDoc(
  text: string,
  value: string | number,
  coding: Coding[],
  more: Partial<Pick<OptionDoc, 'description' | 'annotations'>> & { extra?: Record<string, unknown> } = {},
): OptionDoc {
  return {
    text,
    disabled: false,
    description: more.description ?? null,
    annotations: more.annotations ?? null,
    extra: { ...(more.extra ?? {}), coding },
    value,
  };
}

/** Free text as an option: the UNSTRUCTURED coding holds the text as its code. */
export function unstructuredOption(text: string): OptionDoc {
  return optionDoc(text, text, [{ code: text, display: text, system: CodeSystems.UNSTRUCTURED }]);
}

/** The codings a picked option carries (empty when it has none). */
export function codingsOf(picked: PickedOption): Array<{ code: string; system: string; display?: string }> {
  const coding = picked.extra?.['coding'];
  if (!Array.isArray(coding)) return [];
  return coding
    .filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null)
    .map((c) => ({ code: String(c['code']), system: String(c['system']), ...(typeof c['display'] === 'string' ? { display: c['display'] } : {}) }));
}
