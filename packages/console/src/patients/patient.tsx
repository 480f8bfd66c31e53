// A patient (`#patients/<key>`, docs/console.md, "Patients and notes"): who they are, their notes
// (GET /core/api/v1/notes?patient_key=…) with type, state and times, and the chart panel.
import { useEffect, useState } from 'preact/hooks';
import { apiAs, messageOf } from '../api.ts';
import { ageOf, fullName, NOTE_TYPE_TEXT, noteState, SEX_TEXT } from '../clinical/format.ts';
import { opened } from './recent.ts';
import type { Note, Page, Patient } from '../clinical/types.ts';
import { WithChart } from '../chart/panel.tsx';
import { hrefOf } from '../router.ts';
import { Alert } from '../alert.tsx';
import { When } from '../clinical/when.tsx';
import { followRecord } from '../clinical/changes.ts';
import { FilePlus, Icon } from '../icon.tsx';

export function PatientPage({ patientKey }: { patientKey: string }) {
  const [patient, setPatient] = useState<Patient | undefined>();
  const [notes, setNotes] = useState<Page<Note> | undefined>();
  const [offset, setOffset] = useState(0);
  const [error, setError] = useState<string | undefined>();

  const [noteType, setNoteType] = useState('encounter');
  const [title, setTitle] = useState('');
  const [creating, setCreating] = useState(false);

  useEffect(() => {
    apiAs<Patient>((charta) => charta.patients.get(patientKey)).then(
      (p) => {
        opened(p);
        setPatient(p);
      },
      (err) => setError(messageOf(err)),
    );
  }, [patientKey]);
  const loadNotes = () => apiAs<Page<Note>>((charta) => charta.notes.list({ patientKey, limit: 50, offset })).then(setNotes, (err) => setError(messageOf(err)));
  useEffect(() => {
    void loadNotes();
  }, [patientKey, offset]);
  // Live: a note created, locked, unlocked or deleted anywhere shows without a reload, and the
  // chart follows commits and entries in error (docs/console.md, "Patients and notes").
  const [chartVersion, setChartVersion] = useState(0);
  useEffect(() => {
    let ready = false;
    return followRecord(patientKey, undefined, {
      onReady: () => {
        // Again after a lost connection: what changed meanwhile was not sent.
        if (ready) {
          void loadNotes();
          setChartVersion((v) => v + 1);
        }
        ready = true;
      },
      onChange: (c) => {
        if (c.target.type === 'note') void loadNotes();
        else if (c.action === 'committed' || c.action === 'entered_in_error') setChartVersion((v) => v + 1);
      },
    });
  }, [patientKey, offset]);

  /** POST /core/api/v1/notes/, then the new note's page. */
  const createNote = async (event: Event) => {
    event.preventDefault();
    if (creating) return;
    setCreating(true);
    setError(undefined);
    try {
      const note = await apiAs<Note>((charta) =>
        charta.notes.create({ patientKey, noteType: noteType as Note['note_type'], ...(title.trim() === '' ? {} : { title: title.trim() }) }),
      );
      location.hash = hrefOf.note(note.uuid);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setCreating(false);
    }
  };

  return (
    <>
      <p class="crumbs">
        <a href={hrefOf.patients()}>Patients</a>
      </p>
      <h2>{patient ? fullName(patient) : 'Patient'}</h2>
      <Alert message={error} />
      <WithChart patientKey={patientKey} version={chartVersion}>
        {patient && (
          <dl class="facts">
            <dt>Birth date</dt>
            <dd class="birth">
              {patient.birth_date === null
                ? 'unknown'
                : `${patient.birth_date}${ageOf(patient.birth_date) === undefined ? '' : ` (${ageOf(patient.birth_date)} years)`}`}
            </dd>
            <dt>Sex at birth</dt>
            <dd class="sex">{patient.sex_at_birth === null ? 'not given' : SEX_TEXT[patient.sex_at_birth]}</dd>
            <dt>Patient key</dt>
            <dd>
              <code>{patient.key}</code>
            </dd>
          </dl>
        )}
        <form class="panel new-note" onSubmit={(e) => void createNote(e)}>
          <h3>New note</h3>
          <div class="inline">
            <label for="new-note-type">Type</label>
            <select id="new-note-type" value={noteType} onChange={(e) => setNoteType(e.currentTarget.value)}>
              {Object.entries(NOTE_TYPE_TEXT).map(([key, text]) => (
                <option key={key} value={key}>
                  {text}
                </option>
              ))}
            </select>
            <label for="new-note-title">Title</label>
            <input id="new-note-title" maxLength={200} value={title} onInput={(e) => setTitle(e.currentTarget.value)} placeholder="Optional" />
            <button type="submit" disabled={creating}>
              <Icon node={FilePlus} />
              {creating ? 'Creating…' : 'Create note'}
            </button>
          </div>
        </form>
        <section aria-labelledby="notes-title">
          <h3 id="notes-title">Notes {notes ? `(${notes.count}${notes.count_is_estimate ? '+' : ''})` : ''}</h3>
          {notes === undefined && error === undefined && <p>Loading notes…</p>}
          {notes?.results.length === 0 && <p>This patient has no note yet.</p>}
          {notes !== undefined && notes.results.length > 0 && (
            <ul class="records notes">
              {notes.results.map((n) => (
                <li key={n.uuid} data-note={n.uuid}>
                  <a href={hrefOf.note(n.uuid)}>{n.title}</a>
                  <span class="meta">
                    {NOTE_TYPE_TEXT[n.note_type] ?? n.note_type} · <span class={`state state-${noteState(n).toLowerCase()}`}>{noteState(n)}</span> · created{' '}
                    <When iso={n.created_at} /> · changed <When iso={n.updated_at} />
                  </span>
                </li>
              ))}
            </ul>
          )}
          <div class="actions">
            {notes !== undefined && notes.previous !== null && (
              <button type="button" class="secondary" onClick={() => setOffset(Math.max(0, offset - 50))}>
                Previous notes
              </button>
            )}
            {notes !== undefined && notes.next !== null && (
              <button type="button" class="secondary" onClick={() => setOffset(offset + 50)}>
                More notes
              </button>
            )}
          </div>
        </section>
      </WithChart>
    </>
  );
}
