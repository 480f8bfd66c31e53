// A refusal's reasons, sorted for the editor: each `errors[]` item naming a value
// (`values.<field>` or `values.<field>[i]`) goes next to that field's input; the others (a
// plugin's message about the whole command, `command`) are listed above the form. A plugin's
// message carries the plugin's name (docs/errors.md, plugin_validation_failed).
/** An item of a problem's `errors` (api.ts's FieldProblem). */
export interface Reason {
  field?: string;
  message: string;
  plugin?: string;
}

export interface Sorted {
  byField: Record<string, string[]>;
  general: string[];
}

export function sortProblems(errors: readonly Reason[], fieldNames: readonly string[]): Sorted {
  const byField: Record<string, string[]> = {};
  const general: string[] = [];
  for (const e of errors) {
    const text = e.plugin ? `${e.plugin}: ${e.message}` : e.message;
    const m = /^(?:values\.)?([^.[]+)/.exec(e.field ?? '');
    const name = m?.[1];
    if (name !== undefined && fieldNames.includes(name)) (byField[name] ??= []).push(text);
    else general.push(e.field && e.field !== 'command' ? `${e.field}: ${text}` : text);
  }
  return { byField, general };
}
