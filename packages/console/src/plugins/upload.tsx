// Installing a package: dropped onto the zone or picked with the file input, sent as the plugin
// API's multipart upload (docs/api.md, "Plugins"). A refused package's reasons (the problem's
// `errors`) are listed one per line. A package of a plugin already installed is not an error to
// show beside an older success: the zone says which version is installed and offers to upload the
// package as its new version (new-version.tsx).
import { Reasons } from './reasons.tsx';
import { useRef, useState } from 'preact/hooks';
import { ApiError, apiAs, messageOf, type FieldProblem } from '../api.ts';
import type { Plugin } from './types.ts';
import { OutcomeText, updateWith, type Outcome } from './new-version.tsx';
import { GRANT_NAMES, GRANTS, type Grant } from '@charta/api/constants';
import { Icon, Upload as UploadIcon } from '../icon.tsx';

interface Props {
  /** An upload starts: the page forgets its note of an earlier action, so only this one's outcome shows. */
  onStart: () => void;
  onInstalled: (plugin: Plugin) => void;
  /** After an update offered here, refused or not. */
  onUpdated: () => void;
}

/** A package whose plugin is installed already: the file, the installed plugin and the package's version. */
interface Existing {
  file: File;
  plugin: Plugin;
  version: string;
}

export function Upload({ onStart, onInstalled, onUpdated }: Props) {
  const [enable, setEnable] = useState(true);
  // Grants given with the package (docs/plugins.md, "Grants"): data:instance lets a manifest asking
  // data.scope instance run; without it such a plugin is installed disabled, and the notice says why.
  const [grants, setGrants] = useState<Grant[]>([]);
  const [notice, setNotice] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [over, setOver] = useState(false);
  const [refusal, setRefusal] = useState<{ message: string; reasons: FieldProblem[] } | undefined>();
  const [existing, setExisting] = useState<Existing | undefined>();
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  const input = useRef<HTMLInputElement>(null);

  const install = async (file: File) => {
    setBusy(true);
    setRefusal(undefined);
    setNotice(undefined);
    setExisting(undefined);
    setOutcome(undefined);
    onStart();
    try {
      const plugin = await apiAs<Plugin>((charta) => charta.plugins.install({ name: file.name, data: file }, { isEnabled: enable, grants }));
      setNotice(plugin.notice);
      onInstalled(plugin);
    } catch (err) {
      const found = err instanceof ApiError && err.code === 'plugin_exists' ? await installedOf(file) : undefined;
      if (found !== undefined) setExisting(found);
      else setRefusal({ message: `${file.name}: ${messageOf(err)}`, reasons: err instanceof ApiError ? err.errors : [] });
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  };

  const update = async ({ file, plugin }: Existing) => {
    setBusy(true);
    setExisting(undefined);
    onStart();
    setOutcome(await updateWith(plugin, file));
    setBusy(false);
    onUpdated();
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    const file = event.dataTransfer?.files[0];
    if (file) void install(file);
  };

  return (
    <section aria-labelledby="upload-title">
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
        <p class="drop-title">
          <Icon node={UploadIcon} />
          Drop a package (.tar.gz or .whl) here, or pick one:
        </p>
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
      {existing && (
        <div class="exists" role="status" id="upload-exists">
          <p>
            {existing.plugin.name} is already installed (version {existing.plugin.version}); {existing.file.name} is version {existing.version}.
          </p>
          <div class="actions">
            <button type="button" onClick={() => void update(existing)}>
              Update {existing.plugin.name} to {existing.version}
            </button>
            <button type="button" class="secondary" onClick={() => setExisting(undefined)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {outcome && <OutcomeText outcome={outcome} />}
      {refusal && (
        <div class="error" role="alert" id="upload-refusal">
          <p>{refusal.message}</p>
          <Reasons reasons={refusal.reasons} />
        </div>
      )}
    </section>
  );
}

/**
 * The installed plugin a package refused as `plugin_exists` belongs to: the package's name and
 * version as the instance reads them (extract-metadata), then the plugin. Undefined when either
 * read fails (the refusal is then shown as it came).
 */
async function installedOf(file: File): Promise<Existing | undefined> {
  try {
    const metadata = await apiAs<{ name: string; version: string }>((charta) => charta.plugins.extractMetadata({ name: file.name, data: file }));
    const plugin = await apiAs<Plugin>((charta) => charta.plugins.get(metadata.name));
    return { file, plugin, version: metadata.version };
  } catch {
    return undefined;
  }
}
