// A refusal's reasons, sorted for the editor so that each is shown once (docs/console.md, "The
// command editor"): each `errors[]` item naming a value (`values.<field>` or `values.<field>[i]`)
// goes next to that field's input, worded with the field's label rather than its raw name; the
// others (a plugin's message about the whole command, `command`) are listed above the form. A
// plugin's message carries the plugin's name (docs/errors.md, plugin_validation_failed).
//
// The problem's own message (its `detail`) restates every item of `errors` (docs/errors.md:
// required_field_missing names every missing field, plugin_validation_failed quotes every message,
// validation_failed names each field), so it is not shown beside them: when a reason sits at a
// field, the banner above the form is `summary`, which says where to look without repeating the
// reason; when none does, the banner is the problem's message alone.
import { labelOf } from '../clinical/format.ts';

/** An item of a problem's `errors` (api.ts's FieldProblem). */
export interface Reason {
  field?: string;
  message: string;
  plugin?: string;
}

/** A field of the form: its name, and its label when /fields/ gives one. */
export interface FormField {
  name: string;
  label?: string;
}

export interface Sorted {
  byField: Record<string, string[]>;
  /** Reasons about no field of the form, listed under the banner (empty when the banner is the problem's message). */
  general: string[];
  /** The banner's text instead of the problem's message, when some reason sits at a field. */
  summary?: string;
}

/** `a`, `a and b`, `a, b and c`. */
const list = (items: string[]) => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/**
 * A value's reason worded with its field's label: the server's `<name> is required to commit
 * <kind>` becomes `<Label> is required to commit.`; a reason that starts with the raw name has the
 * label instead; one about the value (`must be …`, `is …`) follows the label; any other is kept,
 * after the label. An item of a list is named by its position (`Tests, item 2`).
 */
function worded(message: string, name: string, label: string, index: number | undefined): string {
  const what = index === undefined ? label : `${label}, item ${index + 1}`;
  if (message.startsWith(`${name} is required to commit`)) return `${what} is required to commit.`;
  if (message.startsWith(`${name} `)) return `${what} ${message.slice(name.length + 1)}`;
  if (/^(must|is|are|should|cannot|can't) /.test(message)) return `${what} ${message}`;
  return `${what}: ${message}`;
}

export function sortProblems(errors: readonly Reason[], fields: readonly FormField[]): Sorted {
  const byField: Record<string, string[]> = {};
  const general: string[] = [];
  const plugins = new Set<string>();
  for (const e of errors) {
    if (e.plugin) plugins.add(e.plugin);
    const m = /^(?:values\.)?([^.[]+)(?:\[(\d+)\])?/.exec(e.field ?? '');
    const field = fields.find((f) => f.name === m?.[1]);
    if (field !== undefined) {
      const label = field.label ?? labelOf(field.name);
      const index = m?.[2] === undefined ? undefined : Number(m[2]);
      // A plugin's message is its own sentence, about this field: kept as it is, with the plugin's name.
      (byField[field.name] ??= []).push(e.plugin ? `${e.plugin}: ${e.message}` : worded(e.message, field.name, label, index));
    } else {
      const text = e.plugin ? `${e.plugin}: ${e.message}` : e.message;
      general.push(e.field && e.field !== 'command' ? `${e.field}: ${text}` : text);
    }
  }
  const placed = fields.filter((f) => byField[f.name] !== undefined).map((f) => f.label ?? labelOf(f.name));
  if (placed.length === 0) return { byField, general: [] };
  const who = plugins.size > 0 ? `Refused by ${[...plugins].join(', ')}` : 'Not accepted';
  return { byField, general, summary: `${who}: see ${list(placed)} below.` };
}
