// The audit trail (`#audit`, docs/console.md, "Audit trail"; docs/operations.md): an API key with
// the admin scope reads who changed or saw what, newest first, filtered by patient, note, command,
// actor, credential, action and time, a page at a time ("Older" follows the cursor). A refusal
// (a bad filter, a key without the scope) is shown once, above the list.
import { useState } from 'preact/hooks';
import type { AuditEntry, AuditFilters } from '@charta/api';
import { api, messageOf } from '../api.ts';
import { Alert } from '../alert.tsx';
import { When } from '../clinical/when.tsx';
import { Icon, Search } from '../icon.tsx';
import { ScrollRegion } from '../scroll-region.tsx';
import './audit.css';

const FILTERS: Array<{ name: keyof AuditFilters; label: string; hint: string }> = [
  { name: 'patient_key', label: 'Patient key', hint: '32 hexadecimal characters' },
  { name: 'note_key', label: 'Note', hint: 'a note uuid' },
  { name: 'command', label: 'Command', hint: 'a command uuid' },
  { name: 'actor', label: 'Actor', hint: 'a staff key, or plugin:<name>' },
  { name: 'credential', label: 'Credential', hint: 'client:<id>, api_key:<id> or plugin:<name>' },
  { name: 'action', label: 'Action', hint: 'e.g. command.committed, patient.read' },
  { name: 'since', label: 'Since', hint: 'ISO 8601, e.g. 2026-11-26T08:00:00Z' },
  { name: 'until', label: 'Until', hint: 'ISO 8601' },
];
const PAGE = 50;

export function AuditPage() {
  const [form, setForm] = useState<Record<string, string>>({});
  const [entries, setEntries] = useState<AuditEntry[] | undefined>();
  const [before, setBefore] = useState<number | null>(null);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const filters = (): AuditFilters =>
    Object.fromEntries(
      Object.entries(form)
        .filter(([, v]) => v.trim() !== '')
        .map(([k, v]) => [k, v.trim()]),
    ) as AuditFilters;

  const load = async (older: boolean) => {
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      const page = await api((charta) => charta.audit.list({ ...filters(), limit: PAGE, ...(older && before !== null ? { before } : {}) }));
      setEntries(older ? [...(entries ?? []), ...page.results] : page.results);
      setBefore(page.next === null ? null : Number(new URL(page.next).searchParams.get('before')));
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h2>Audit trail</h2>
      <p class="hint">Every change to the record, and every read of patient data by a client or a plugin, newest first.</p>
      <form
        class="panel audit-filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          void load(false);
        }}
      >
        <div class="filter-grid">
          {FILTERS.map((f) => (
            <div key={f.name} class="field">
              <label for={`audit-${f.name}`}>{f.label}</label>
              <input
                id={`audit-${f.name}`}
                type="text"
                maxLength={200}
                placeholder={f.hint}
                value={form[f.name] ?? ''}
                onInput={(e) => setForm({ ...form, [f.name]: e.currentTarget.value })}
              />
            </div>
          ))}
        </div>
        <div class="actions">
          <button type="submit" disabled={busy}>
            <Icon node={Search} />
            Show entries
          </button>
        </div>
      </form>
      <Alert message={error} />
      {entries !== undefined && (
        <section aria-labelledby="audit-title">
          <h3 id="audit-title">
            Entries ({entries.length}
            {before !== null ? '+' : ''})
          </h3>
          {entries.length === 0 ? (
            <p>No entry matches.</p>
          ) : (
            <ScrollRegion label="Audit entries, scrolling sideways">
              <table class="audit" aria-labelledby="audit-title">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Action</th>
                    <th scope="col">What</th>
                    <th scope="col">Patient</th>
                    <th scope="col">Who</th>
                  </tr>
                </thead>
                <tbody>
                  {entries.map((e) => (
                    <tr key={e.id} data-action={e.action}>
                      <td>
                        <When iso={e.occurred_at} />
                      </td>
                      <td>
                        <code>{e.action}</code>
                      </td>
                      <td>
                        {e.entity_type} <code class="id">{e.entity_id}</code>
                      </td>
                      <td>{e.patient_key === null ? '–' : <code class="id">{e.patient_key}</code>}</td>
                      <td>
                        {e.actor ?? '–'}
                        {e.credential !== null && e.credential !== e.actor && <span class="meta"> via {e.credential}</span>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
          {before !== null && (
            <div class="actions">
              <button type="button" class="secondary" disabled={busy} onClick={() => void load(true)}>
                Older entries
              </button>
            </div>
          )}
        </section>
      )}
    </>
  );
}
