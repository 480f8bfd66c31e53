// The console's frame: the sign-in form until someone signs in, then the pages with a sign-out
// button. Signing out drops the credentials (session.ts) and unmounts every page with its state.
// The page shown follows the URL's hash: `#logs` the live logs, anything else the plugins.
import { useEffect, useState } from 'preact/hooks';
import { forget, signedIn, type Credentials } from './session.ts';
import { SignIn } from './sign-in.tsx';
import { PluginsPage } from './plugins/page.tsx';
import { LogsPage } from './logs/page.tsx';

export function App() {
  const [who, setWho] = useState<Credentials | undefined>(signedIn());
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const follow = () => setHash(location.hash);
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  if (who === undefined) return <SignIn onSignedIn={setWho} />;
  const signOut = () => {
    forget();
    setWho(undefined);
  };
  const page = hash === '#logs' ? 'logs' : 'plugins';
  return (
    <>
      <header class="bar">
        <h1>Charta console</h1>
        <nav aria-label="Pages">
          <a href="#plugins" aria-current={page === 'plugins' ? 'page' : undefined}>
            Plugins
          </a>
          <a href="#logs" aria-current={page === 'logs' ? 'page' : undefined}>
            Live logs
          </a>
        </nav>
        <span class="who">{who.kind === 'api-key' ? 'Signed in with an API key' : `Signed in as client ${who.clientId}`}</span>
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main">{page === 'logs' ? <LogsPage /> : <PluginsPage />}</main>
    </>
  );
}
