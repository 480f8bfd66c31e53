// The command editor (docs/console.md, "The command editor"): a form built from the command's
// /fields/ answer alone. Save sends the changed values with PATCH and If-Match; a 412 says the
// command changed elsewhere and offers to reload it. Commit, delete and enter in error are
// offered only in the states that allow them, and only in a note that takes changes. Every
// reason of a 400 is shown next to the field it names.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ChartaClient, CommandResult } from '@charta/client';
import { ApiError, api, apiAs, messageOf } from '../api.ts';
import type { Command, Field, Option } from '../clinical/types.ts';
import { kindLabel } from '../clinical/kinds.ts';
import { STATE_TEXT, labelOf } from '../clinical/format.ts';
import { FieldInput } from './field.tsx';
import { sortProblems, type Sorted } from './problems.ts';
import './editor.css';
import { Check, Icon, Trash2 } from '../icon.tsx';

interface Props {
  uuid: string;
  /** The note takes changes (docs/api.md, "Note rules"). */
  noteWritable: boolean;
  /** After a save, commit, entry in error or delete: the command as it is now (undefined once deleted). */
  onChanged: (command: Command | undefined, what: 'saved' | 'committed' | 'entered_in_error' | 'deleted') => void;
  /** Just added: once its fields are there, the editor scrolls into view and its first field takes the focus. */
  focusFirst?: boolean;
}

/**
 * Fields the form puts on one row, by kind (docs/console.md, "The command editor"): short values
 * that are read together. A row stands where the first of its fields would; on a phone it wraps.
 */
const ROWS: Record<string, string[][]> = {
  prescribe: [['quantity_to_dispense', 'type_to_dispense', 'refills', 'days_supply']],
  goal: [
    ['start_date', 'due_date'],
    ['achievement_status', 'priority'],
  ],
  updateGoal: [['due_date', 'achievement_status', 'priority']],
};

/**
 * A scored questionnaire's total (docs/console.md, "The command editor"): the points of the
 * answers given, the most the scored questions can add up to, and how many of them are answered.
 * Undefined when no question is scored.
 */
export function scoreOf(fields: Field[], values: Record<string, unknown>): { total: number; max: number; answered: number; questions: number } | undefined {
  const scored = fields.filter((f) => f.type === 'ChoiceField' && f.choices.length > 0 && f.choices.every((c) => typeof c.score === 'number'));
  if (scored.length === 0) return undefined;
  let total = 0;
  let max = 0;
  let answered = 0;
  for (const f of scored) {
    max += Math.max(...f.choices.map((c) => c.score ?? 0));
    const picked = f.choices.find((c) => c.value === values[f.name]);
    if (picked === undefined) continue;
    total += picked.score ?? 0;
    answered++;
  }
  return { total, max, answered, questions: scored.length };
}

/** The fields in the order the form shows them: one field, or a row of them. */
function layoutOf(kind: string, fields: Field[]): Array<Field | Field[]> {
  const rows = ROWS[kind] ?? [];
  const placed = new Set<string>();
  const out: Array<Field | Field[]> = [];
  for (const f of fields) {
    if (placed.has(f.name)) continue;
    const row = rows.find((r) => r.includes(f.name));
    if (row === undefined) {
      out.push(f);
      continue;
    }
    const members = row.map((name) => fields.find((x) => x.name === name)).filter((x): x is Field => x !== undefined);
    for (const m of members) placed.add(m.name);
    out.push(members);
  }
  return out;
}

interface Refusal {
  text: string;
  /** 412: the command changed elsewhere; reloading is offered. */
  conflict: boolean;
  general: string[];
}

/** A local value as `values` sends it: empty text, an empty list or nothing is `null` (remove the value). */
function toWire(field: Field, value: unknown): unknown {
  if (value === undefined || value === null || value === '') return null;
  if (Array.isArray(value) && value.length === 0) return null;
  // An integer is sent as a number; anything else typed is sent as typed, for the server to name it.
  if (field.type === 'IntegerField' && typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim())) return Number(value.trim());
  return value;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export function CommandEditor({ uuid, noteWritable, onChanged, focusFirst = false }: Props) {
  const [command, setCommand] = useState<Command | undefined>();
  // The ETag of the command as last read or written: a ref, as a commit right after a save needs the new one at once.
  const etag = useRef<string | undefined>(undefined);
  const [fields, setFields] = useState<Field[] | undefined>();
  const [values, setValues] = useState<Record<string, unknown>>({});
  const [byField, setByField] = useState<Record<string, string[]>>({});
  const [refusal, setRefusal] = useState<Refusal | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState<'delete' | 'enter-in-error' | 'unanswered' | undefined>();
  const cancel = useRef<HTMLButtonElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const ready = command !== undefined && fields !== undefined;
  // A command just added: its editor in sight, its first field focused (not left on "Add command").
  useEffect(() => {
    if (!ready || !focusFirst || form.current === null) return;
    (form.current.closest('li') ?? form.current).scrollIntoView({ block: 'start' });
    form.current.querySelector<HTMLElement>('input, textarea, select')?.focus({ preventScroll: true });
  }, [ready, focusFirst]);
  /** Text typed in a coded field and not picked, by field: Save and Commit refuse to go over it. */
  const pending = useRef<Record<string, string>>({});
  // The question takes the focus from the button that asked it, on Cancel.
  useEffect(() => {
    if (confirming !== undefined) cancel.current?.focus();
  }, [confirming]);

  const show = (c: Command, tag: string | null, f: Field[]) => {
    setCommand(c);
    etag.current = tag ?? undefined;
    setFields(f);
    setValues({ ...c.data });
  };

  /** Reads the command and its fields; the messages go only once the new state is there to show. */
  const load = async () => {
    try {
      const read = await api((charta) => charta.commands.get(uuid));
      const f = await fieldsOf();
      setRefusal(undefined);
      setByField({});
      setDone(undefined);
      show(read.command as unknown as Command, read.etag, f);
    } catch (err) {
      setRefusal({ text: messageOf(err), conflict: false, general: [] });
    }
  };
  const fieldsOf = async () => (await apiAs<{ fields: Field[] }>((charta) => charta.commands.fields(uuid))).fields;

  useEffect(() => void load(), [uuid]);

  const editable = noteWritable && command?.state === 'staged';

  /** The values that differ from the stored command, as PATCH sends them. */
  const changes = (local: Record<string, unknown>) => {
    const out: Record<string, unknown> = {};
    for (const f of fields ?? []) {
      const wire = toWire(f, local[f.name]);
      if (!same(wire, command?.data[f.name])) out[f.name] = wire;
    }
    return out;
  };

  const refused = (err: unknown) => {
    if (err instanceof ApiError && err.status === 412) {
      setByField({});
      return setRefusal({
        text: 'This command was changed elsewhere (in another tab or by someone else) since you opened it. Your changes were not saved.',
        conflict: true,
        general: [],
      });
    }
    // Each reason once: at its field with the field's label, the banner saying where (editor/problems.ts).
    const sorted: Sorted = err instanceof ApiError ? sortProblems(err.errors, fields ?? []) : { byField: {}, general: [] };
    setByField(sorted.byField);
    setRefusal({ text: sorted.summary ?? messageOf(err), conflict: false, general: sorted.general });
  };

  /** One write with If-Match; answers the command as it is now, or undefined when deleted. */
  const write = async (
    send: (charta: ChartaClient, options: { ifMatch?: string }) => Promise<CommandResult | void>,
    what: 'saved' | 'committed' | 'entered_in_error' | 'deleted',
  ) => {
    const options = etag.current === undefined ? {} : { ifMatch: etag.current };
    const answer = await api((charta) => send(charta, options));
    if (what === 'deleted' || answer === undefined) return undefined;
    const c = answer.command as unknown as Command;
    show(c, answer.etag, what === 'saved' ? await fieldsOf() : (fields ?? []));
    return c;
  };

  const run = async (step: () => Promise<string | undefined>) => {
    setBusy(true);
    setDone(undefined);
    try {
      const message = await step();
      setRefusal(undefined);
      setByField({});
      setDone(message);
    } catch (err) {
      refused(err);
    } finally {
      setBusy(false);
    }
  };

  /** Saves `local` when anything changed; answers what was saved, as "Saved: <labels>." (or undefined for nothing). */
  const saveValues = async (local: Record<string, unknown>) => {
    const changed = changes(local);
    const names = Object.keys(changed);
    if (names.length === 0) return undefined;
    const c = await write((charta, options) => charta.commands.update(uuid, changed, options), 'saved');
    onChanged(c, 'saved');
    const labels = names.map((n) => {
      const f = fields?.find((x) => x.name === n);
      return f?.label ?? labelOf(n);
    });
    return `Saved: ${labels.join(', ')}.`;
  };

  /**
   * Typed text a coded field would lose: each such field says so next to it and takes the focus,
   * and nothing is sent (docs/console.md, "The command editor"). True when there is some.
   */
  const unpickedText = (): boolean => {
    const typed = Object.entries(pending.current).filter(([, text]) => text.trim() !== '');
    if (typed.length === 0) return false;
    setDone(undefined);
    setRefusal(undefined);
    setByField(
      Object.fromEntries(
        typed.map(([name, text]) => {
          const free = fields?.find((f) => f.name === name)?.free_text === true;
          return [name, [`"${text.trim()}" is typed but not picked: pick one of the options${free ? ' (or use it as free text)' : ''}, or clear the box.`]];
        }),
      ),
    );
    document.getElementById(`field-${uuid}-${typed[0]![0]}`)?.focus();
    return true;
  };

  const save = (event?: Event) => {
    event?.preventDefault();
    if (unpickedText()) return;
    void run(async () => (await saveValues(values)) ?? 'Nothing to save.');
  };
  const pick = (name: string, value: Option | Option[] | null) => {
    const local = { ...values, [name]: value };
    setValues(local);
    void run(async () => (await saveValues(local)) ?? 'Nothing to save.');
  };
  /** A questionnaire's questions (the fields with a label) that have no answer, saved or typed. */
  const unanswered = () =>
    (fields ?? [])
      .filter((f) => f.label !== undefined && f.name.startsWith('question-'))
      .filter((f) => {
        const v = values[f.name];
        return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
      });
  /** Commit, after a warning when questions are unanswered (docs/console.md, "The command editor"). */
  const askToCommit = () => {
    if (unpickedText()) return;
    if (unanswered().length > 0) setConfirming('unanswered');
    else commit();
  };
  const commit = () =>
    void run(async () => {
      await saveValues(values);
      const c = await write((charta, options) => charta.commands.commit(uuid, options), 'committed');
      onChanged(c, 'committed');
      return 'Committed.';
    });
  const enterInError = () =>
    void run(async () => {
      const c = await write((charta, options) => charta.commands.enterInError(uuid, options), 'entered_in_error');
      onChanged(c, 'entered_in_error');
      return 'Entered in error.';
    });
  const remove = () =>
    void run(async () => {
      await write((charta, options) => charta.commands.delete(uuid, options), 'deleted');
      onChanged(undefined, 'deleted');
      return undefined;
    });

  if (command === undefined || fields === undefined) {
    return refusal ? (
      <p class="error" role="alert">
        {refusal.text}
      </p>
    ) : (
      <p>Loading the command…</p>
    );
  }
  const dirty = Object.keys(changes(values)).length > 0;
  const score = scoreOf(fields, values);
  const input = (f: Field) => (
    <FieldInput
      key={f.name}
      commandUuid={uuid}
      field={f}
      value={values[f.name]}
      editable={editable}
      errors={byField[f.name] ?? []}
      onChange={(v) => setValues({ ...values, [f.name]: v })}
      onPick={(v) => pick(f.name, v)}
      onPending={(text) => (pending.current[f.name] = text)}
    />
  );
  const titleId = `editor-${uuid}`;
  return (
    <form class="editor" ref={form} aria-labelledby={titleId} onSubmit={save} data-command={uuid}>
      <h4 id={titleId}>
        {kindLabel(command.schema_key)} — {STATE_TEXT[command.state]}
      </h4>
      {!noteWritable && <p class="hint">This note is locked, deleted or takes no commands: its commands cannot change.</p>}
      {refusal && (
        <div class="error refusal" role="alert">
          <p>{refusal.text}</p>
          {refusal.general.length > 0 && (
            <ul>
              {refusal.general.map((g, i) => (
                <li key={i}>{g}</li>
              ))}
            </ul>
          )}
          {refusal.conflict && (
            <button type="button" class="secondary" onClick={() => void load()}>
              Reload the command
            </button>
          )}
        </div>
      )}
      {done && (
        <p class="ok" role="status">
          {done}
        </p>
      )}
      {layoutOf(command.schema_key, fields).map((item) =>
        Array.isArray(item) ? (
          <div key={item.map((f) => f.name).join(' ')} class="field-row">
            {item.map(input)}
          </div>
        ) : (
          input(item)
        ),
      )}
      {score !== undefined && (
        <p class="score">
          <output aria-live="polite">
            Total score: <strong>{score.total}</strong> of {score.max}
          </output>
          <span class="meta">
            {' '}
            · {score.answered} of {score.questions} scored question{score.questions === 1 ? '' : 's'} answered
          </span>
        </p>
      )}
      {noteWritable && command.state !== 'entered_in_error' && confirming === undefined && (
        <div class="actions">
          {command.state === 'staged' && (
            <>
              <button type="submit" class="secondary" disabled={busy || !dirty}>
                Save
              </button>
              <button type="button" onClick={askToCommit} disabled={busy}>
                <Icon node={Check} />
                Commit
              </button>
              {Object.keys(command.data).length === 0 && !dirty ? (
                // Nothing in it yet: nothing to lose, so no question (docs/console.md, "Patients and notes").
                <button type="button" class="secondary" onClick={remove} disabled={busy}>
                  Discard
                </button>
              ) : (
                <button type="button" class="danger" onClick={() => setConfirming('delete')} disabled={busy}>
                  <Icon node={Trash2} />
                  Delete
                </button>
              )}
            </>
          )}
          {command.state === 'committed' && (
            <button type="button" class="danger" onClick={() => setConfirming('enter-in-error')} disabled={busy}>
              Enter in error
            </button>
          )}
        </div>
      )}
      {confirming !== undefined && (
        // Both cannot be undone: asked once more, with Cancel first.
        <div class="actions confirm" role="group" aria-labelledby={`${titleId}-confirm`}>
          <p id={`${titleId}-confirm`}>
            {confirming === 'unanswered'
              ? `${unanswered().length} question${unanswered().length === 1 ? ' is' : 's are'} not answered: ${unanswered()
                  .map((f) => f.label)
                  .join('; ')}. Commit anyway? `
              : confirming === 'delete'
                ? 'Delete this staged command? '
                : 'Enter this command in error? '}
            {confirming === 'unanswered' ? 'A committed questionnaire cannot be changed.' : 'This cannot be undone.'}
          </p>
          <button type="button" class="secondary" onClick={() => setConfirming(undefined)} ref={cancel}>
            Cancel
          </button>
          <button
            type="button"
            class="danger"
            onClick={() => {
              setConfirming(undefined);
              if (confirming === 'delete') remove();
              else if (confirming === 'unanswered') commit();
              else enterInError();
            }}
          >
            {confirming === 'delete' ? 'Yes, delete it' : confirming === 'unanswered' ? 'Commit with questions unanswered' : 'Yes, enter it in error'}
          </button>
        </div>
      )}
    </form>
  );
}
