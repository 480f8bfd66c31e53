// A note (`#notes/<uuid>`, docs/console.md, "Patients and notes"): its commands
// (GET /core/api/v1/commands?note_key=…) with kind, state, authors and times; adding a command of
// any kind to a note that takes changes; the command editor; and the patient's chart panel,
// reloaded after each commit or entry in error.
import { useEffect, useState } from 'preact/hooks';
import { api, apiAs, messageOf } from '../api.ts';
import { NOTE_TYPE_TEXT, STATE_TEXT, ageAndSex, fullName, noteState, staff, summaryOf } from '../clinical/format.ts';
import { KINDS, kindLabel } from '../clinical/kinds.ts';
import { writable, type Command, type Note, type Page, type Patient } from '../clinical/types.ts';
import { WithChart } from '../chart/panel.tsx';
import { CommandEditor } from '../editor/editor.tsx';
import { hrefOf } from '../router.ts';
import { Alert } from '../alert.tsx';
import { When } from '../clinical/when.tsx';
import { followRecord } from '../clinical/changes.ts';
import { useStaffName } from '../clinical/staff.ts';
import { Icon, Plus, Trash2 } from '../icon.tsx';

export function NotePage({ noteKey }: { noteKey: string }) {
  const [note, setNote] = useState<Note | undefined>();
  const [patient, setPatient] = useState<Patient | undefined>();
  const [commands, setCommands] = useState<Page<Command> | undefined>();
  const [open, setOpen] = useState<string | undefined>();
  const [kind, setKind] = useState('plan');
  const [error, setError] = useState<string | undefined>();
  const [chartVersion, setChartVersion] = useState(0);
  // An add under way: the button waits for it, so a double click adds one command, not two.
  const [adding, setAdding] = useState(false);
  /** The command just added, whose editor takes the focus. */
  const [added, setAdded] = useState<string | undefined>();

  const loadCommands = () =>
    apiAs<Page<Command>>((charta) => charta.commands.list({ noteKey, limit: 100, offset: 0 })).then(setCommands, (err) => setError(messageOf(err)));
  useEffect(() => {
    apiAs<Note>((charta) => charta.notes.get(noteKey)).then(setNote, (err) => setError(messageOf(err)));
    void loadCommands();
  }, [noteKey]);
  const patientKey = note?.patient_key;
  useEffect(() => {
    if (patientKey !== undefined) apiAs<Patient>((charta) => charta.patients.get(patientKey)).then(setPatient, (err) => setError(messageOf(err)));
  }, [patientKey]);
  // Live: a change of this note or its commands, by anyone (another tab, a plugin's effect), shows
  // without a reload; a command a plugin added is marked (docs/console.md, "Patients and notes").
  const [news, setNews] = useState<string | undefined>();
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  useEffect(() => {
    if (patientKey === undefined) return;
    let ready = false;
    return followRecord(patientKey, noteKey, {
      onReady: () => {
        // Again after a lost connection: what changed meanwhile was not sent.
        if (ready) void loadCommands();
        ready = true;
      },
      onChange: (c) => {
        if (c.target.type === 'note') {
          apiAs<Note>((charta) => charta.notes.get(noteKey)).then(setNote, (err) => setError(messageOf(err)));
          return;
        }
        void loadCommands();
        if (c.action === 'committed' || c.action === 'entered_in_error') setChartVersion((v) => v + 1);
        if (c.action === 'created' && c.actor.startsWith('plugin:')) {
          setNews(`New command by plugin ${c.actor.slice('plugin:'.length)}`);
          setFresh((f) => new Set(f).add(c.target.id));
        }
      },
    });
  }, [patientKey, noteKey]);

  const add = async (event: Event) => {
    event.preventDefault();
    if (adding) return;
    setAdding(true);
    setError(undefined);
    try {
      const { command: c } = await api((charta) => charta.commands.create({ schemaKey: kind, noteKey, values: {} }));
      await loadCommands();
      setOpen(c.uuid);
      setAdded(c.uuid);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setAdding(false);
    }
  };

  const [noteBusy, setNoteBusy] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  /** Lock, unlock or delete the note (POST …/lock/, …/unlock/, DELETE …/): the note as it is then. */
  const noteAction = async (what: 'lock' | 'unlock' | 'delete') => {
    if (noteBusy) return;
    setNoteBusy(true);
    setError(undefined);
    try {
      setNote(await apiAs<Note>((charta) => charta.notes[what](noteKey)));
      setConfirmDelete(false);
      setOpen(undefined);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setNoteBusy(false);
    }
  };

  const changed = (command: Command | undefined, what: string) => {
    if (what === 'committed' || what === 'entered_in_error') setChartVersion((v) => v + 1);
    if (command === undefined) setOpen(undefined);
    void loadCommands();
  };

  const canWrite = note !== undefined && writable(note);
  return (
    <>
      <p class="crumbs">
        <a href={hrefOf.patients()}>Patients</a>
        {note && (
          <>
            {' › '}
            <a href={hrefOf.patient(note.patient_key)}>{patient ? fullName(patient) : 'The patient'}</a>
            {patient && ageAndSex(patient) !== '' && <span class="meta patient-facts"> · {ageAndSex(patient)}</span>}
          </>
        )}
      </p>
      <h2>{note ? note.title : 'Note'}</h2>
      <Alert message={error} />
      {news !== undefined && (
        <p class="ok live-news" role="status">
          {news}
        </p>
      )}
      <WithChart patientKey={note?.patient_key} version={chartVersion}>
        {note && (
          <dl class="facts">
            <dt>Type</dt>
            <dd>{NOTE_TYPE_TEXT[note.note_type] ?? note.note_type}</dd>
            <dt>State</dt>
            <dd class={`state state-${noteState(note).toLowerCase()}`}>{noteState(note)}</dd>
            <dt>Created</dt>
            <dd>
              <When iso={note.created_at} />
            </dd>
            <dt>Changed</dt>
            <dd>
              <When iso={note.updated_at} />
            </dd>
          </dl>
        )}
        {note && !note.deleted && (
          <div class="actions note-actions">
            {note.locked ? (
              <button type="button" class="secondary" disabled={noteBusy} onClick={() => void noteAction('unlock')}>
                Unlock note
              </button>
            ) : (
              <button type="button" class="secondary" disabled={noteBusy} onClick={() => void noteAction('lock')}>
                Lock note
              </button>
            )}
            {confirmDelete ? (
              <span class="confirm" role="group" aria-label="Delete this note?">
                Delete this note? Its commands stay readable.{' '}
                <button type="button" class="secondary" onClick={() => setConfirmDelete(false)}>
                  Cancel
                </button>{' '}
                <button type="button" class="danger" disabled={noteBusy} onClick={() => void noteAction('delete')}>
                  Yes, delete the note
                </button>
              </span>
            ) : (
              <button type="button" class="danger" disabled={noteBusy} onClick={() => setConfirmDelete(true)}>
                <Icon node={Trash2} />
                Delete note
              </button>
            )}
          </div>
        )}
        {note && !canWrite && (
          <p class="hint" id="note-read-only">
            {note.deleted ? 'This note is deleted' : note.locked ? 'This note is locked' : 'This type of note takes no commands'}: its commands can be read, not
            changed.
          </p>
        )}
        {canWrite && (
          <form class="panel add-command" onSubmit={(e) => void add(e)}>
            <label for="new-kind">Add a command of kind</label>
            <div class="inline">
              <select id="new-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
                {KINDS.map((k) => (
                  <option key={k.key} value={k.key}>
                    {k.label}
                  </option>
                ))}
              </select>
              <button type="submit" disabled={adding} aria-busy={adding}>
                <Icon node={Plus} />
                {adding ? 'Adding…' : 'Add command'}
              </button>
            </div>
          </form>
        )}
        <section aria-labelledby="commands-title">
          <h3 id="commands-title">Commands {commands ? `(${commands.count}${commands.count_is_estimate ? '+' : ''})` : ''}</h3>
          {commands === undefined && error === undefined && <p>Loading commands…</p>}
          {commands?.results.length === 0 && <p>This note has no command yet.</p>}
          <ul class="records commands">
            {commands?.results.map((c) => (
              <li key={c.uuid} data-command={c.uuid} data-kind={c.schema_key} class={fresh.has(c.uuid) ? 'fresh' : undefined}>
                <div class="command-head">
                  <strong>{kindLabel(c.schema_key)}</strong> <span class={`state state-${c.state}`}>{STATE_TEXT[c.state]}</span>
                  <span class="meta">
                    by <Author keyOf={c.originated_by} />
                    {c.committed_by !== null && (
                      <>
                        {' '}
                        · committed by <Author keyOf={c.committed_by} />
                      </>
                    )}{' '}
                    · created <When iso={c.created_at} /> · changed <When iso={c.updated_at} />
                  </span>
                  <button type="button" class="secondary small" aria-expanded={open === c.uuid} onClick={() => setOpen(open === c.uuid ? undefined : c.uuid)}>
                    {open === c.uuid ? 'Close' : canWrite && c.state === 'staged' ? 'Edit' : 'View'}
                    <span class="sr-only"> {kindLabel(c.schema_key)}</span>
                  </button>
                </div>
                {summaryOf(c) !== '' && <p class="summary">{summaryOf(c)}</p>}
                {open === c.uuid && <CommandEditor uuid={c.uuid} noteWritable={canWrite} onChanged={changed} focusFirst={added === c.uuid} />}
              </li>
            ))}
          </ul>
          {commands !== undefined && commands.results.length < commands.count && <p class="meta">Showing the first {commands.results.length}.</p>}
        </section>
      </WithChart>
    </>
  );
}

/** Who wrote a command: a plugin as a badge with its whole name, a staff member by name (the full key is the title). */
function Author({ keyOf }: { keyOf: string }) {
  if (keyOf.startsWith('plugin:')) {
    return (
      <span class="badge plugin-author" title={keyOf}>
        plugin {keyOf.slice('plugin:'.length)}
      </span>
    );
  }
  return <StaffName keyOf={keyOf} />;
}

/** A staff member by name (`Alex Demo, MD`), the key its title; the key's first eight characters until the name is read. */
function StaffName({ keyOf }: { keyOf: string }) {
  const name = useStaffName(keyOf);
  return (
    <abbr class="staff-name" title={keyOf}>
      {name ?? staff(keyOf)}
    </abbr>
  );
}
