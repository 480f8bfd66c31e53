// One field of the command editor, drawn from its /fields/ description alone (docs/api.md,
// "Fields"): the input its type calls for, its label with the required mark, its choices, and
// the server's messages about it next to it.
import type { Field, Option } from '../clinical/types.ts';
import { labelOf } from '../clinical/format.ts';
import { codeOf, Picker } from './picker.tsx';

interface Props {
  commandUuid: string;
  field: Field;
  value: unknown;
  /** The command can change (staged, in a writable note). */
  editable: boolean;
  errors: string[];
  onChange: (value: unknown) => void;
  /** A pick of an AutocompleteField: saved at once, as other fields' options and questions may depend on it. */
  onPick: (value: Option | Option[] | null) => void;
  /** A coded field's text typed and not picked ('' once picked or cleared). */
  onPending: (text: string) => void;
}

const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));

export function FieldInput({ commandUuid, field, value, editable, errors, onChange, onPick, onPending }: Props) {
  const id = `field-${commandUuid}-${field.name}`;
  const errorId = `${id}-error`;
  const invalid = errors.length > 0;
  const describedBy = [invalid ? errorId : undefined, hintOf(field) ? `${id}-hint` : undefined].filter(Boolean).join(' ') || undefined;
  const label = (
    <>
      {field.label ?? labelOf(field.name)}
      {field.required && <span class="required"> (required to commit)</span>}
    </>
  );
  // A command that cannot change (committed, entered in error, or in a locked note) reads as text,
  // not as disabled inputs (docs/console.md, "The command editor").
  if (!editable) {
    return (
      <div class="field read-only" data-field={field.name}>
        <span class="label" id={`${id}-label`}>
          {field.label ?? labelOf(field.name)}
        </span>
        <output id={id} class="value" aria-labelledby={`${id}-label`}>
          {readOnlyText(field, value)}
        </output>
      </div>
    );
  }
  const common = { id, disabled: !editable, 'aria-invalid': invalid || undefined, 'aria-describedby': describedBy };

  let input;
  switch (field.type) {
    case 'MultiLineTextField':
      input = <textarea {...common} rows={3} value={text(value)} onInput={(e) => onChange(e.currentTarget.value)} />;
      break;
    case 'ChoiceField':
      // A questionnaire's question (it has a label): its answers as a radio group, every one in sight.
      if (field.label !== undefined) {
        return (
          <fieldset class="field question" data-field={field.name} aria-describedby={describedBy} aria-invalid={invalid || undefined}>
            <legend>{field.label}</legend>
            {field.choices.map((c) => (
              <label key={c.value} class="choice">
                <input type="radio" name={id} value={c.value} checked={value === c.value} onChange={() => onChange(c.value)} />
                {c.text}
              </label>
            ))}
            <Messages id={errorId} errors={errors} />
          </fieldset>
        );
      }
      input = (
        <select {...common} value={text(value)} onChange={(e) => onChange(e.currentTarget.value)}>
          <option value="">— none —</option>
          {field.choices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.text}
            </option>
          ))}
        </select>
      );
      break;
    case 'MultipleChoiceField': {
      const chosen = Array.isArray(value) ? (value as string[]) : [];
      return (
        <fieldset class="field" data-field={field.name} aria-describedby={describedBy} aria-invalid={invalid || undefined}>
          <legend>{label}</legend>
          {field.choices.map((c) => (
            <label key={c.value} class="choice">
              <input
                type="checkbox"
                disabled={!editable}
                checked={chosen.includes(c.value)}
                onChange={(e) => onChange(e.currentTarget.checked ? [...chosen, c.value] : chosen.filter((v) => v !== c.value))}
              />
              {c.text}
            </label>
          ))}
          <Messages id={errorId} errors={errors} />
        </fieldset>
      );
    }
    case 'CheckboxField':
      return (
        <div class="field" data-field={field.name}>
          <label class="choice">
            <input type="checkbox" {...common} checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} />
            {label}
          </label>
          <Messages id={errorId} errors={errors} />
        </div>
      );
    case 'DateField':
      input = <input {...common} type="date" value={text(value)} onInput={(e) => onChange(e.currentTarget.value)} />;
      break;
    case 'IntegerField':
      input = <input {...common} type="text" inputMode="numeric" value={text(value)} onInput={(e) => onChange(e.currentTarget.value)} />;
      break;
    case 'DecimalField':
      input = <input {...common} type="text" inputMode="decimal" value={text(value)} onInput={(e) => onChange(e.currentTarget.value)} />;
      break;
    case 'AutocompleteField':
      input = editable ? (
        <Picker
          id={id}
          commandUuid={commandUuid}
          field={field}
          value={value}
          disabled={false}
          describedBy={describedBy}
          invalid={invalid}
          onPick={onPick}
          onPending={onPending}
        />
      ) : (
        <output id={id} class="value">
          {readOnlyOptions(value)}
        </output>
      );
      break;
    default:
      // TextField, ApproximateDateField and any type this console does not know yet: one line of text.
      input = <input {...common} type="text" value={text(value)} onInput={(e) => onChange(e.currentTarget.value)} />;
  }
  return (
    <div class="field" data-field={field.name}>
      <label for={id}>{label}</label>
      {hintOf(field) && (
        <p class="hint" id={`${id}-hint`}>
          {hintOf(field)}
        </p>
      )}
      {input}
      <Messages id={errorId} errors={errors} />
    </div>
  );
}

function hintOf(field: Field): string | undefined {
  if (field.type === 'ApproximateDateField') return 'A year, year-month or date: YYYY, YYYY-MM or YYYY-MM-DD.';
  if (field.max_items !== undefined) return `Up to ${field.max_items}.`;
  return undefined;
}

/** A value as text: a choice's text, picked options with their codes, Yes/No, '—' for none. */
function readOnlyText(field: Field, value: unknown): string {
  if (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)) return '—';
  switch (field.type) {
    case 'AutocompleteField':
      return readOnlyOptions(value);
    case 'ChoiceField':
      return field.choices.find((c) => c.value === value)?.text ?? String(value);
    case 'MultipleChoiceField':
      return (value as string[]).map((v) => field.choices.find((c) => c.value === v)?.text ?? v).join('; ');
    case 'CheckboxField':
      return value === true ? 'Yes' : 'No';
    default:
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}

function readOnlyOptions(value: unknown) {
  const options = (Array.isArray(value) ? value : value ? [value] : []) as Option[];
  if (options.length === 0) return '—';
  return options.map((o) => `${o.text}${codeOf(o) ? ` (${codeOf(o)})` : ''}`).join('; ');
}

function Messages({ id, errors }: { id: string; errors: string[] }) {
  if (errors.length === 0) return null;
  return (
    <ul id={id} class="field-errors error">
      {errors.map((e, i) => (
        <li key={i}>{e}</li>
      ))}
    </ul>
  );
}
