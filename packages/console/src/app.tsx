// The console's frame: the sign-in form until someone signs in, then the page the hash names
// (router.ts) with the nav and a sign-out button. Signing out drops the credentials (session.ts)
// and unmounts every page with its state; so does the instance refusing them (a 401, the log
// stream's 4401), with a notice on the sign-in form and the hash kept (docs/console.md, "An
// expired or revoked credential").
import { useEffect, useRef, useState } from 'preact/hooks';
import { forget, signedIn, whenRefused, type Credentials } from './session.ts';
import { SignIn } from './sign-in.tsx';
import { PluginsPage } from './plugins/page.tsx';
import { PatientSearch } from './patients/search.tsx';
import { PatientPage } from './patients/patient.tsx';
import { NotePage } from './notes/note.tsx';
import { LogsPage } from './logs/page.tsx';
import { locate, useLocation, type Location, type Section } from './router.ts';
import { forgetRecent } from './patients/recent.ts';
import { Activity, Icon, LogOut, Puzzle, ScrollText, ShieldCheck, Users } from './icon.tsx';
import { AuditPage } from './audit/page.tsx';
import type { IconNode } from 'lucide';

export const SESSION_ENDED = 'Your session has expired or was revoked; sign in again.';

const NAV: Array<{ section: Section; href: string; text: string; icon: IconNode }> = [
  { section: 'plugins', href: '#plugins', text: 'Plugins', icon: Puzzle },
  { section: 'logs', href: '#logs', text: 'Live logs', icon: ScrollText },
  { section: 'patients', href: '#patients', text: 'Patients', icon: Users },
  { section: 'audit', href: '#audit', text: 'Audit', icon: ShieldCheck },
];

function Page({ where, who }: { where: Location; who: Credentials }) {
  // The clinical pages take an OAuth token (an API key is refused 403 there): said at once, no request made.
  if (where.route?.section === 'patients' && who.kind === 'api-key') {
    return (
      <>
        <h2>Patients</h2>
        <p class="hint" id="needs-oauth">
          You signed in with an API key, which reaches the plugins and the logs. Patients and notes need a sign-in with an OAuth client (client ID and secret):
          sign out and sign in with one.
        </p>
      </>
    );
  }
  // The audit trail takes an API key with the admin scope (a token is refused 403 there): said at once.
  if (where.route?.section === 'audit' && who.kind === 'oauth') {
    return (
      <>
        <h2>Audit trail</h2>
        <p class="hint" id="needs-admin-key">
          You signed in with an OAuth client, which reaches patients and notes. The audit trail needs a sign-in with an API key that has the admin scope: sign
          out and sign in with one.
        </p>
      </>
    );
  }
  switch (where.route?.name) {
    case 'plugins':
      return <PluginsPage />;
    case 'logs':
      return <LogsPage />;
    case 'audit':
      return <AuditPage />;
    case 'patients':
      return <PatientSearch />;
    case 'patient':
      return <PatientPage key={where.params[0]} patientKey={where.params[0]!} />;
    case 'note':
      return <NotePage key={where.params[0]} noteKey={where.params[0]!} />;
    default:
      return (
        <>
          <h2>Page not found</h2>
          <p>
            This console has no page at that address. Go to <a href="#patients">Patients</a> or <a href="#plugins">Plugins</a>.
          </p>
        </>
      );
  }
}

export function App() {
  const [who, setWho] = useState<Credentials | undefined>(signedIn());
  const [notice, setNotice] = useState<string | undefined>();
  useEffect(() => {
    whenRefused(() => {
      forgetRecent();
      setNotice(SESSION_ENDED);
      setWho(undefined);
    });
    return () => whenRefused(undefined);
  }, []);
  const where = useLocation();
  const main = useRef<HTMLElement>(null);
  // A new page moves the focus to its content, as a page load would (screen readers announce it).
  const first = useRef(true);
  useEffect(() => {
    if (first.current) return void (first.current = false);
    // Without scrolling: a page taller than the window would otherwise open scrolled to its content.
    main.current?.focus({ preventScroll: true });
  }, [where.hash]);
  if (who === undefined) {
    const signedInAgain = (again: Credentials) => {
      setNotice(undefined);
      // An OAuth client is for the clinical pages: it opens on Patients, unless an address was asked for.
      if (again.kind === 'oauth' && locate(location.hash).hash === '') location.hash = '#patients';
      setWho(again);
    };
    return <SignIn onSignedIn={signedInAgain} notice={notice} />;
  }
  const signOut = () => {
    forget();
    forgetRecent();
    setWho(undefined);
  };
  return (
    <>
      <header class="bar">
        <h1>
          <Icon node={Activity} />
          Charta console
        </h1>
        <nav aria-label="Pages">
          {NAV.map((n) => (
            <a key={n.section} href={n.href} aria-current={where.route?.section === n.section ? 'page' : undefined}>
              <Icon node={n.icon} />
              {n.text}
            </a>
          ))}
        </nav>
        <span class="who">{who.kind === 'api-key' ? 'Signed in with an API key' : `Signed in as client ${who.clientId}`}</span>
        <button type="button" class="secondary" onClick={signOut}>
          <Icon node={LogOut} />
          Sign out
        </button>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <Page where={where} who={who} />
      </main>
    </>
  );
}
