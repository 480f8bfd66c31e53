// A coded field's picker (docs/console.md, "The command editor"): an ARIA combobox that asks the
// field's autocomplete endpoint as you type (debounced), lists options with their code and
// system, and is driven by the keyboard: ArrowDown/ArrowUp move, Enter picks, Escape closes. A
// field holding a list (`max_items`) adds each pick to the list. A field that takes free text
// (`free_text`) offers, after the server's options, the typed text as an UNSTRUCTURED option.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf } from '../api.ts';
import { UNSTRUCTURED, type Field, type Option } from '../clinical/types.ts';
import { codingText } from '../clinical/format.ts';

export const DEBOUNCE_MS = 250;

interface Props {
  id: string;
  commandUuid: string;
  field: Field;
  value: unknown;
  disabled: boolean;
  describedBy: string | undefined;
  invalid: boolean;
  onPick: (value: Option | Option[] | null) => void;
}

/** `code · system` of an option's first coding, when it has one. */
export function codeOf(option: Option): string | undefined {
  const c = option.extra?.coding?.[0];
  return c === undefined ? undefined : codingText(c);
}

/** Typed text as the option docs/api.md ("Setting an autocomplete field") says free text is sent as. */
function freeTextOption(text: string): Option {
  return { text, value: text, extra: { coding: [{ code: text, display: text, system: UNSTRUCTURED }] } };
}

const asOptions = (value: unknown): Option[] =>
  (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]).filter(
    (o): o is Option => typeof o === 'object' && o !== null && typeof (o as Option).text === 'string',
  );

export function Picker({ id, commandUuid, field, value, disabled, describedBy, invalid, onPick }: Props) {
  const [term, setTerm] = useState('');
  const [open, setOpen] = useState(false);
  const [found, setFound] = useState<Option[]>([]);
  /** The term the options shown answer (the free text offered). */
  const [answered, setAnswered] = useState('');
  const [active, setActive] = useState(-1);
  const [status, setStatus] = useState<string | undefined>();
  const asked = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const listId = `${id}-options`;
  const list = field.max_items !== undefined;
  const picked = asOptions(value);
  const free = field.free_text === true ? answered.trim() : '';
  // The server's options, then the typed text as free text where the field takes it (docs/console.md, "The command editor").
  const options = free === '' ? found : [...found, freeTextOption(free)];

  useEffect(() => () => clearTimeout(timer.current), []);

  const ask = async (text: string) => {
    const mine = ++asked.current;
    setStatus('Searching…');
    try {
      const wire = await api((charta) => charta.commands.autocomplete(commandUuid, field.name, text, { limit: 20 }));
      if (mine !== asked.current) return;
      const answer = wire.map((o) => JSON.parse(o.value) as Option);
      const typed = field.free_text === true && text.trim() !== '';
      setFound(answer);
      setAnswered(text);
      // No option is active until an arrow key moves to one (the ARIA list autocomplete with manual selection).
      setActive(-1);
      setOpen(true);
      setStatus(statusOf(answer.length, text, typed));
    } catch (err) {
      if (mine === asked.current) setStatus(messageOf(err));
    }
  };

  const type = (text: string) => {
    setTerm(text);
    setActive(-1);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void ask(text), DEBOUNCE_MS);
  };

  const close = () => {
    asked.current++;
    clearTimeout(timer.current);
    setOpen(false);
    setActive(-1);
  };

  const pick = (option: Option) => {
    close();
    setTerm('');
    setStatus(undefined);
    if (!list) return onPick(option);
    if (picked.some((p) => p.value === option.value)) return;
    onPick([...picked, option]);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    switch (event.key) {
      case 'ArrowDown':
        event.preventDefault();
        if (!open) return void ask(term);
        setActive(Math.min(active + 1, options.length - 1));
        return;
      case 'ArrowUp':
        event.preventDefault();
        if (open && options.length > 0) setActive(active <= 0 ? options.length - 1 : active - 1);
        return;
      case 'Enter':
        // Enter picks; it never submits the form around the picker.
        event.preventDefault();
        if (open && options[active] !== undefined) pick(options[active]);
        return;
      case 'Escape':
        if (open) {
          event.preventDefault();
          event.stopPropagation();
          close();
        }
        return;
    }
  };

  const full = list && picked.length >= (field.max_items ?? 1);
  return (
    <div class="picker">
      {picked.length > 0 && (
        <ul class="picked" aria-label={`Picked for ${field.name}`}>
          {picked.map((o) => (
            <li key={String(o.value)}>
              <span class="picked-text">{o.text}</span> {codeOf(o) && <span class="meta">{codeOf(o)}</span>}{' '}
              {!disabled && (
                <button
                  type="button"
                  class="secondary small"
                  onClick={() => onPick(list ? picked.filter((p) => p.value !== o.value) : null)}
                  aria-label={`Remove ${o.text}`}
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {!disabled && !full && (
        <>
          <input
            id={id}
            type="text"
            role="combobox"
            autocomplete="off"
            maxLength={200}
            aria-autocomplete="list"
            aria-expanded={open && options.length > 0}
            aria-controls={listId}
            aria-activedescendant={open && active >= 0 ? `${listId}-${active}` : undefined}
            aria-describedby={describedBy}
            aria-invalid={invalid || undefined}
            placeholder={picked.length > 0 && !list ? 'Type to pick another' : 'Type to search'}
            value={term}
            onInput={(e) => type(e.currentTarget.value)}
            onFocus={() => term === '' && void ask('')}
            onBlur={close}
            onKeyDown={onKeyDown}
          />
          <ul id={listId} role="listbox" class="options" hidden={!open || options.length === 0} aria-label={`Options for ${field.name}`}>
            {options.map((o, i) => (
              <li
                key={`${String(o.value)}-${i}`}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={i === active}
                class={i === active ? 'active' : undefined}
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => pick(o)}
              >
                {i === found.length ? (
                  <>
                    <span>Use "{o.text}" as free text</span> <span class="code">{UNSTRUCTURED}</span>
                  </>
                ) : (
                  <>
                    <span>{o.text}</span> {codeOf(o) && <span class="code">{codeOf(o)}</span>}
                  </>
                )}
              </li>
            ))}
          </ul>
          <span class="sr-only" role="status">
            {open ? status : ''}
          </span>
        </>
      )}
    </div>
  );
}

/** What the status region announces once options arrive. */
function statusOf(count: number, text: string, freeText: boolean): string {
  const options = `${count} option${count === 1 ? '' : 's'}`;
  if (freeText) return count === 0 ? 'No option matches; the text can be used as free text.' : `${options}, then the text as free text.`;
  return count === 0 ? (text.trim() === '' ? 'Type to search.' : 'No option matches.') : `${options}.`;
}
