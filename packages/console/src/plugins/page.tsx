// The plugins page (docs/console.md, "The plugins page"): the installed plugins, installing one,
// updating one with a new version, enabling, disabling, deleting (after a confirmation),
// downloading, secrets and recent logs.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, apiAs } from '../api.ts';
import { Upload } from './upload.tsx';
import { PluginCard } from './card.tsx';
import { downloadPackage } from './download.ts';
import type { Plugin } from './types.ts';
import { useNote } from './note.ts';
import { Icon, Trash2 } from '../icon.tsx';

export function PluginsPage() {
  const [plugins, setPlugins] = useState<Plugin[] | undefined>();
  const [count, setCount] = useState(0);
  const { note, failed, act: acted, clear } = useNote();
  const [doomed, setDoomed] = useState<Plugin | undefined>();
  const dialog = useRef<HTMLDialogElement>(null);

  const load = useCallback(async () => {
    try {
      const page = await apiAs<{ count: number; results: Plugin[] }>((charta) => charta.plugins.list({ limit: 100 }));
      setPlugins(page.results);
      setCount(page.count);
    } catch (err) {
      failed(err);
    }
  }, [failed]);
  useEffect(() => void load(), [load]);
  const act = (what: () => Promise<string>) => acted(what, load);

  const toggle = (p: Plugin) =>
    act(async () => {
      await api((charta) => (p.is_enabled ? charta.plugins.disable(p.name) : charta.plugins.enable(p.name)));
      return `${p.name} ${p.is_enabled ? 'disabled' : 'enabled'}.`;
    });

  const askDelete = (p: Plugin) => {
    setDoomed(p);
    dialog.current?.showModal();
  };
  const confirmDelete = () => {
    const p = doomed;
    dialog.current?.close();
    if (p === undefined) return;
    // An enabled plugin is stopped and deleted in one step (the dialog says so).
    void act(async () => {
      await api((charta) => charta.plugins.delete(p.name, { force: p.is_enabled }));
      return `${p.name} deleted.`;
    });
  };

  return (
    <>
      <h2>Plugins</h2>
      {note && (
        <p role={note.error ? 'alert' : 'status'} class={`note ${note.error ? 'error' : 'ok'}`}>
          {note.text}
        </p>
      )}
      <Upload
        onStart={clear}
        onInstalled={(p) => void act(async () => `${p.name} ${p.version} installed${p.is_enabled ? ' and enabled' : ''}.`)}
        onUpdated={() => void load()}
      />
      <section aria-labelledby="installed-title">
        <h2 id="installed-title">Installed ({plugins === undefined ? '…' : count})</h2>
        {plugins === undefined && <p>Loading…</p>}
        {plugins?.length === 0 && <p>No plugin is installed yet.</p>}
        {count > (plugins?.length ?? 0) && <p>Showing the first {plugins?.length}.</p>}
        <ul class="plugins">
          {plugins?.map((p) => (
            <PluginCard
              key={p.name}
              plugin={p}
              onToggle={(x) => void toggle(x)}
              onDownload={(x) => void act(async () => (await downloadPackage(x.name), `${x.name}'s package downloaded.`))}
              onDelete={askDelete}
              onUpdated={() => void load()}
            />
          ))}
        </ul>
      </section>
      <dialog ref={dialog} aria-labelledby="delete-title" onClose={() => setDoomed(undefined)}>
        <h2 id="delete-title">Delete {doomed?.name}?</h2>
        <p>
          {doomed?.is_enabled ? 'It is enabled: it will be stopped, then ' : 'It will be '}
          deleted with its package and secrets. This cannot be undone.
        </p>
        <div class="actions">
          <button type="button" class="danger" onClick={confirmDelete}>
            <Icon node={Trash2} />
            Delete {doomed?.name}
          </button>
          <button type="button" class="secondary" onClick={() => dialog.current?.close()} autofocus>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}
