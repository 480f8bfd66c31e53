// The console's frame: the sign-in form until someone signs in, then the pages with a sign-out
// button. Signing out drops the credentials (session.ts) and unmounts every page with its state.
import { useState } from 'preact/hooks';
import { forget, signedIn, type Credentials } from './session.ts';
import { SignIn } from './sign-in.tsx';
import { PluginsPage } from './plugins/page.tsx';

export function App() {
  const [who, setWho] = useState<Credentials | undefined>(signedIn());
  if (who === undefined) return <SignIn onSignedIn={setWho} />;
  const signOut = () => {
    forget();
    setWho(undefined);
  };
  return (
    <>
      <header class="bar">
        <h1>Charta console</h1>
        <nav aria-label="Pages">
          <a href="#plugins" aria-current="page">
            Plugins
          </a>
        </nav>
        <span class="who">{who.kind === 'api-key' ? 'Signed in with an API key' : `Signed in as client ${who.clientId}`}</span>
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <PluginsPage />
      </main>
    </>
  );
}
