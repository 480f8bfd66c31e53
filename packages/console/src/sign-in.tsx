// Sign in (docs/console.md, "Signing in"): with an API key (plugin and admin pages), checked by
// listing the plugins, or with OAuth client credentials (clinical pages), exchanged at
// POST /auth/token/. A refusal shows the server's own problem message. Signed out because the
// instance refused the credentials, it says so (`notice`); the hash is left alone, so signing in
// again shows the page that was open.
import { useState } from 'preact/hooks';
import { ApiError, api, messageOf } from './api.ts';
import { remember, type Credentials } from './session.ts';
import { Alert } from './alert.tsx';

interface Props {
  onSignedIn: (who: Credentials) => void;
  /** Why the console is back at the sign-in form, when it was not the user's choice. */
  notice?: string | undefined;
}

export function SignIn({ onSignedIn, notice }: Props) {
  const [mode, setMode] = useState<'api-key' | 'oauth'>('api-key');
  const [key, setKey] = useState('');
  const [clientId, setClientId] = useState('');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      let who: Credentials;
      if (mode === 'api-key') {
        who = { kind: 'api-key', key: key.trim() };
        await api((charta) => charta.plugins.list({ limit: 1 }), { as: who });
        remember(who);
      } else {
        const t = await api((charta) => charta.requestToken(clientId.trim(), secret), { anonymous: true });
        who = { kind: 'oauth', token: t.access_token, clientId: clientId.trim(), scope: t.scope };
        remember(who);
      }
      setKey('');
      setSecret('');
      onSignedIn(who);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>Charta console</h1>
      {notice !== undefined && (
        <p class="notice" role="alert">
          {notice}
        </p>
      )}
      <form onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        <fieldset>
          <legend>Sign in with</legend>
          <label class="choice">
            <input type="radio" name="mode" value="api-key" checked={mode === 'api-key'} onChange={() => setMode('api-key')} />
            an API key (plugins)
          </label>
          <label class="choice">
            <input type="radio" name="mode" value="oauth" checked={mode === 'oauth'} onChange={() => setMode('oauth')} />
            OAuth client credentials (patients, notes, commands)
          </label>
        </fieldset>
        {mode === 'api-key' ? (
          <p>
            <label for="api-key">API key</label>
            <input id="api-key" type="password" autocomplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
          </p>
        ) : (
          <>
            <p>
              <label for="client-id">Client id</label>
              <input id="client-id" autocomplete="off" required value={clientId} onInput={(e) => setClientId(e.currentTarget.value)} />
            </p>
            <p>
              <label for="client-secret">Client secret</label>
              <input id="client-secret" type="password" autocomplete="off" required value={secret} onInput={(e) => setSecret(e.currentTarget.value)} />
            </p>
          </>
        )}
        <Alert id="sign-in-error" message={error} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <p class="hint">Credentials stay in this tab's memory only: reloading or closing the tab signs you out.</p>
      </form>
    </main>
  );
}
