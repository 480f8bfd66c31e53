// A plugin's secrets, write-only (docs/api.md, "Plugin secrets"): the names the server lists and
// whether each is set; a value typed here is sent once and the input emptied. No value is ever
// read back: the API has no way to answer one.
import { useEffect, useState } from 'preact/hooks';
import { apiAs, messageOf } from '../api.ts';
import { Icon, Save } from '../icon.tsx';

interface Secret {
  name: string;
  declared: boolean;
  is_set: boolean;
  updated_at: string | null;
}

export function Secrets({ plugin }: { plugin: string }) {
  const [secrets, setSecrets] = useState<Secret[] | undefined>();
  const [values, setValues] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<{ text: string; error: boolean } | undefined>();

  useEffect(() => {
    apiAs<{ results: Secret[] }>((charta) => charta.plugins.secrets(plugin)).then(
      (r) => setSecrets(r.results),
      (err) => setMessage({ text: messageOf(err), error: true }),
    );
  }, [plugin]);

  const change = async (body: Record<string, string | null>, done: string) => {
    try {
      const r = await apiAs<{ results: Secret[] }>((charta) => charta.plugins.setSecrets(plugin, body));
      setSecrets(r.results);
      setValues({});
      setMessage({ text: done, error: false });
    } catch (err) {
      setMessage({ text: messageOf(err), error: true });
    }
  };

  const save = (event: Event) => {
    event.preventDefault();
    const body = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
    if (Object.keys(body).length === 0) return setMessage({ text: 'Type a value to set first.', error: true });
    void change(body, `Set: ${Object.keys(body).join(', ')}`);
  };

  if (secrets === undefined) return <p>{message?.text ?? 'Loading secrets…'}</p>;
  return (
    <form class="secrets" onSubmit={save} aria-label={`Secrets of ${plugin}`}>
      <h4>Secrets</h4>
      {secrets.length === 0 && <p>This plugin declares no secrets.</p>}
      {secrets.map((s) => {
        const id = `secret-${plugin}-${s.name}`;
        return (
          <p key={s.name} class="secret">
            <label for={id}>
              {s.name} <span class="state">({s.is_set ? 'set' : 'not set'})</span>
            </label>
            <input
              id={id}
              type="password"
              autocomplete="new-password"
              placeholder={s.is_set ? 'type a new value to replace it' : 'type a value'}
              value={values[s.name] ?? ''}
              onInput={(e) => setValues({ ...values, [s.name]: e.currentTarget.value })}
            />
            {s.is_set && (
              <button type="button" class="secondary" onClick={() => void change({ [s.name]: null }, `Removed: ${s.name}`)}>
                Remove {s.name}
              </button>
            )}
          </p>
        );
      })}
      {secrets.length > 0 && (
        <button type="submit">
          <Icon node={Save} />
          Save secrets
        </button>
      )}
      {message && (
        <p role={message.error ? 'alert' : 'status'} class={message.error ? 'error' : 'ok'}>
          {message.text}
        </p>
      )}
    </form>
  );
}
