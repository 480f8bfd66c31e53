// A coded field's picker (docs/console.md, "The command editor"): an ARIA combobox that asks the
// field's autocomplete endpoint as you type (debounced), lists options with their code and
// system, and is driven by the keyboard: ArrowDown/ArrowUp move, Enter picks, Escape closes. A
// field holding a list (`max_items`) adds each pick to the list. A field that takes free text
// (`free_text`) offers, after the server's options, the typed text as an UNSTRUCTURED option.
// Options of an earlier keystroke cannot be picked while the new ones are on their way (they are
// dimmed, "Searching…" shows), and text typed but not picked is reported to the editor
// (`onPending`), which refuses to save or commit over it (docs/console.md, "The command editor").
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf } from '../api.ts';
import { UNSTRUCTURED, type Field, type Option } from '../clinical/types.ts';
import { codingText } from '../clinical/format.ts';

export const DEBOUNCE_MS = 250;

/**
 * Whether a mouse button or a finger is down now. A picker left by a click closes its options once
 * the click is done, not on the press: closing them moves what follows, and a click whose press and
 * release land on different things is lost (Commit or Discard pressed, the page shifted, released
 * beside it).
 */
let pressing = false;
addEventListener('pointerdown', () => (pressing = true), true);
addEventListener('pointerup', () => (pressing = false), true);
addEventListener('pointercancel', () => (pressing = false), true);

interface Props {
  id: string;
  commandUuid: string;
  field: Field;
  value: unknown;
  disabled: boolean;
  describedBy: string | undefined;
  invalid: boolean;
  onPick: (value: Option | Option[] | null) => void;
  /** The text typed and not picked ('' once picked or cleared). */
  onPending: (text: string) => void;
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

export function Picker({ id, commandUuid, field, value, disabled, describedBy, invalid, onPick, onPending }: Props) {
  const [term, setTerm] = useState('');
  const [open, setOpen] = useState(false);
  const [found, setFound] = useState<Option[]>([]);
  /** The term the options shown answer (the free text offered). */
  const [answered, setAnswered] = useState('');
  const [active, setActive] = useState(-1);
  const [status, setStatus] = useState<string | undefined>();
  /** The options shown answer an earlier term: a search for the typed one is on its way. */
  const [stale, setStale] = useState(false);
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
      setStale(false);
      setStatus(statusOf(answer.length, text, typed));
    } catch (err) {
      if (mine === asked.current) {
        setStale(false);
        setStatus(messageOf(err));
      }
    }
  };

  const type = (text: string) => {
    setTerm(text);
    onPending(text);
    setActive(-1);
    setStale(true);
    setStatus('Searching…');
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void ask(text), DEBOUNCE_MS);
  };

  const close = () => {
    asked.current++;
    clearTimeout(timer.current);
    setOpen(false);
    setStale(false);
    setActive(-1);
  };

  const pick = (option: Option) => {
    if (stale) return;
    close();
    setTerm('');
    onPending('');
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
        if (open && !stale && options[active] !== undefined) pick(options[active]);
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
              <span class="picked-value">
                <span class="picked-text">{o.text}</span> {codeOf(o) && <span class="meta">{codeOf(o)}</span>}
              </span>{' '}
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
          {/* "Searching…" lies inside the box, at its end: it comes and goes without moving anything, so a
              click that leaves the box (on Commit, on Discard) lands where it was aimed. */}
          <span class="picker-input">
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
              onBlur={() => (pressing ? addEventListener('pointerup', () => setTimeout(close, 0), { once: true }) : close())}
              onKeyDown={onKeyDown}
            />
            {stale && (
              <span class="searching" aria-hidden="true">
                Searching…
              </span>
            )}
          </span>
          <ul
            id={listId}
            role="listbox"
            class={stale ? 'options stale' : 'options'}
            hidden={!open || options.length === 0}
            aria-busy={stale || undefined}
            aria-label={`Options for ${field.name}`}
          >
            {options.map((o, i) => (
              <li
                key={`${String(o.value)}-${i}`}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={i === active}
                aria-disabled={stale || undefined}
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
                    {o.description && <span class="meta option-note">{o.description}</span>}
                  </>
                )}
              </li>
            ))}
          </ul>
          {!open && term.trim() !== '' && <p class="hint unpicked">Not picked yet: choose one of the options, or clear the box.</p>}
          <span class="sr-only" role="status">
            {open || stale ? status : ''}
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
