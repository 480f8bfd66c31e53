// A patient (`#patients/<key>`, docs/console.md, "Patients and notes"): who they are, their notes
// (GET /core/api/v1/notes?patient_key=…) with type, state and times, and the chart panel.
import { useEffect, useState } from 'preact/hooks';
import { apiAs, messageOf } from '../api.ts';
import { fullName, NOTE_TYPE_TEXT, noteState, when } from '../clinical/format.ts';
import type { Note, Page, Patient } from '../clinical/types.ts';
import { ChartPanel } from '../chart/panel.tsx';
import { hrefOf } from '../router.ts';
import { Alert } from '../alert.tsx';

export function PatientPage({ patientKey }: { patientKey: string }) {
  const [patient, setPatient] = useState<Patient | undefined>();
  const [notes, setNotes] = useState<Page<Note> | undefined>();
  const [offset, setOffset] = useState(0);
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    apiAs<Patient>((charta) => charta.patients.get(patientKey)).then(setPatient, (err) => setError(messageOf(err)));
  }, [patientKey]);
  useEffect(() => {
    apiAs<Page<Note>>((charta) => charta.notes.list({ patientKey, limit: 50, offset })).then(setNotes, (err) => setError(messageOf(err)));
  }, [patientKey, offset]);

  return (
    <>
      <p class="crumbs">
        <a href={hrefOf.patients()}>Patients</a>
      </p>
      <h2>{patient ? fullName(patient) : 'Patient'}</h2>
      <Alert message={error} />
      <div class="with-chart">
        <div class="content">
          {patient && (
            <dl class="facts">
              <dt>Birth date</dt>
              <dd>{patient.birth_date ?? 'unknown'}</dd>
              <dt>Patient key</dt>
              <dd>
                <code>{patient.key}</code>
              </dd>
            </dl>
          )}
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
                      <time dateTime={n.created_at}>{when(n.created_at)}</time> · changed <time dateTime={n.updated_at}>{when(n.updated_at)}</time>
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
        </div>
        <ChartPanel patientKey={patientKey} version={0} />
      </div>
    </>
  );
}
