// Installing a package: dropped onto the zone or picked with the file input, sent as the plugin
// API's multipart upload (docs/api.md, "Plugins"). A refused package's reasons (the problem's
// `errors`) are listed one per line.
import { useRef, useState } from 'preact/hooks';
import { ApiError, apiAs, messageOf, type FieldProblem } from '../api.ts';
import type { Plugin } from './types.ts';
import { GRANT_NAMES, GRANTS, type Grant } from '@charta/api/constants';

interface Props {
  onInstalled: (plugin: Plugin) => void;
}

export function Upload({ onInstalled }: Props) {
  const [enable, setEnable] = useState(true);
  // Grants given with the package (docs/plugins.md, "Grants"): data:instance lets a manifest asking
  // data.scope instance run; without it such a plugin is installed disabled, and the notice says why.
  const [grants, setGrants] = useState<Grant[]>([]);
  const [notice, setNotice] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [over, setOver] = useState(false);
  const [refusal, setRefusal] = useState<{ message: string; reasons: FieldProblem[] } | undefined>();
  const input = useRef<HTMLInputElement>(null);

  const install = async (file: File) => {
    setBusy(true);
    setRefusal(undefined);
    setNotice(undefined);
    try {
      const plugin = await apiAs<Plugin>((charta) => charta.plugins.install({ name: file.name, data: file }, { isEnabled: enable, grants }));
      setNotice(plugin.notice);
      onInstalled(plugin);
    } catch (err) {
      setRefusal({ message: `${file.name}: ${messageOf(err)}`, reasons: err instanceof ApiError ? err.errors : [] });
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    const file = event.dataTransfer?.files[0];
    if (file) void install(file);
  };

  return (
    <section aria-labelledby="upload-title" class="panel">
      <h2 id="upload-title">Install a plugin</h2>
      <div
        class={`drop${over ? ' over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <p>Drop a package (.tar.gz or .whl) here, or pick one:</p>
        <label for="package-file">Package file</label>
        <input
          id="package-file"
          ref={input}
          type="file"
          accept=".gz,.tgz,.tar.gz,.whl"
          disabled={busy}
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            if (file) void install(file);
          }}
        />
        <label class="choice">
          <input type="checkbox" checked={enable} onChange={(e) => setEnable(e.currentTarget.checked)} />
          Enable it once installed
        </label>
        <fieldset class="grants-given">
          <legend>Grants given with it</legend>
          {GRANT_NAMES.map((grant) => (
            <label key={grant} class="choice" title={GRANTS[grant]}>
              <input
                type="checkbox"
                checked={grants.includes(grant)}
                onChange={(e) => setGrants(e.currentTarget.checked ? [...grants, grant] : grants.filter((g) => g !== grant))}
              />
              <code>{grant}</code>
            </label>
          ))}
        </fieldset>
        {busy && <p role="status">Uploading…</p>}
        {notice && (
          <p role="status" class="notice">
            {notice}
          </p>
        )}
      </div>
      {refusal && (
        <div class="error" role="alert" id="upload-refusal">
          <p>{refusal.message}</p>
          {refusal.reasons.length > 0 && (
            <ul aria-label="Reasons">
              {refusal.reasons.map((r, i) => (
                <li key={i}>
                  {r.field ? <code>{r.field}</code> : null} {r.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
