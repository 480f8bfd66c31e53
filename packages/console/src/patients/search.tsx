// Find a patient (docs/console.md, "Patients and notes"): a name search over
// GET /core/api/v1/patients, twenty at a time. The search term stays in the page's memory, never
// in the address.
import { useEffect, useState } from 'preact/hooks';
import { apiAs, messageOf } from '../api.ts';
import { fullName, SEX_TEXT } from '../clinical/format.ts';
import { SEXES_AT_BIRTH, type SexAtBirth } from '@charta/api/constants';
import type { Page, Patient } from '../clinical/types.ts';
import { hrefOf } from '../router.ts';
import { Alert } from '../alert.tsx';
import { recentPatients } from './recent.ts';
import { Icon, Search, UserPlus } from '../icon.tsx';

const PAGE = 20;

export function PatientSearch() {
  const [name, setName] = useState('');
  const [found, setFound] = useState<{ term: string; offset: number; page: Page<Patient> } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const search = async (term: string, offset: number) => {
    setBusy(true);
    setError(undefined);
    try {
      const name = term.trim() !== '' ? term : undefined;
      setFound({ term, offset, page: await apiAs<Page<Patient>>((charta) => charta.patients.search({ name, limit: PAGE, offset })) });
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const submit = (event: Event) => {
    event.preventDefault();
    void search(name, 0);
  };
  // Every patient at once (the first page, by name), so the list is never empty before a search.
  useEffect(() => {
    void search('', 0);
  }, []);

  const [first, setFirst] = useState('');
  const [last, setLast] = useState('');
  const [birth, setBirth] = useState('');
  const [sex, setSex] = useState<SexAtBirth | ''>('');
  const [creating, setCreating] = useState(false);
  /** POST /core/api/v1/patients/, then the new patient's page. */
  const create = async (event: Event) => {
    event.preventDefault();
    if (creating) return;
    setCreating(true);
    setError(undefined);
    try {
      const patient = await apiAs<Patient>((charta) =>
        charta.patients.create({
          firstName: first.trim(),
          lastName: last.trim(),
          ...(birth === '' ? {} : { birthDate: birth }),
          ...(sex === '' ? {} : { sexAtBirth: sex }),
        }),
      );
      location.hash = hrefOf.patient(patient.key);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setCreating(false);
    }
  };
  const recent = recentPatients();

  const page = found?.page;
  return (
    <>
      <h2>Patients</h2>
      <form class="panel search" role="search" onSubmit={submit}>
        <label for="patient-name">Patient name</label>
        <p class="hint" id="patient-name-hint">
          Every word you type must appear in the first or last name; leave it empty to list every patient.
        </p>
        <div class="inline">
          <input
            id="patient-name"
            type="search"
            autocomplete="off"
            maxLength={100}
            aria-describedby="patient-name-hint"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy}>
            <Icon node={Search} />
            Search
          </button>
        </div>
      </form>
      <Alert message={error} />
      {recent.length > 0 && (
        <section aria-labelledby="recent-title">
          <h3 id="recent-title">Opened recently</h3>
          <ul class="records recent">
            {recent.map((p) => (
              <li key={p.key}>
                <a href={hrefOf.patient(p.key)}>{fullName(p)}</a>
              </li>
            ))}
          </ul>
        </section>
      )}
      {page !== undefined && found !== undefined && (
        <section aria-labelledby="results-title">
          <h3 id="results-title">{found.term.trim() === '' ? 'All patients' : 'Results'}</h3>
          <p role="status">
            {page.count === 0
              ? 'No patient matches.'
              : `${page.count}${page.count_is_estimate ? '+' : ''} patient${page.count === 1 ? '' : 's'} found${found.offset > 0 ? `, from number ${found.offset + 1}` : ''}`}
          </p>
          <ul class="records">
            {page.results.map((p) => (
              <li key={p.key}>
                <a href={hrefOf.patient(p.key)}>{fullName(p)}</a>
                <span class="meta">{p.birth_date ? `born ${p.birth_date}` : 'birth date unknown'}</span>
              </li>
            ))}
          </ul>
          <div class="actions">
            {page.previous !== null && (
              <button type="button" class="secondary" onClick={() => void search(found.term, Math.max(0, found.offset - PAGE))}>
                Previous patients
              </button>
            )}
            {page.next !== null && (
              <button type="button" class="secondary" onClick={() => void search(found.term, found.offset + PAGE)}>
                More patients
              </button>
            )}
          </div>
        </section>
      )}
      <details class="panel new-patient">
        <summary>New patient</summary>
        <form onSubmit={(e) => void create(e)}>
          <label for="new-first">First name</label>
          <input id="new-first" required maxLength={100} value={first} onInput={(e) => setFirst(e.currentTarget.value)} />
          <label for="new-last">Last name</label>
          <input id="new-last" required maxLength={100} value={last} onInput={(e) => setLast(e.currentTarget.value)} />
          <label for="new-birth">Birth date</label>
          <input id="new-birth" type="date" value={birth} onInput={(e) => setBirth(e.currentTarget.value)} />
          <label for="new-sex">Sex at birth</label>
          <select id="new-sex" value={sex} onChange={(e) => setSex(e.currentTarget.value as SexAtBirth | '')}>
            <option value="">— not given —</option>
            {SEXES_AT_BIRTH.map((s) => (
              <option key={s} value={s}>
                {SEX_TEXT[s]}
              </option>
            ))}
          </select>
          <div class="actions">
            <button type="submit" disabled={creating}>
              <Icon node={UserPlus} />
              {creating ? 'Creating…' : 'Create patient'}
            </button>
          </div>
        </form>
      </details>
    </>
  );
}
