// Updating an installed plugin with a new package (docs/console.md, "The plugins page"): PATCH
// …/plugins/{name}/ with the package. The outcome says the version and checksum before and after;
// a refused package (400 with its reasons) leaves the installed version live, and says so with
// every reason. Used by each plugin's card ("Upload a new version") and by the install zone when the
// package dropped there is of a plugin already installed.
import { Reasons } from './reasons.tsx';
import { useRef, useState } from 'preact/hooks';
import { ApiError, apiAs, messageOf, type FieldProblem } from '../api.ts';
import type { Plugin } from './types.ts';

/** A version and the first characters of its checksum, as an outcome shows them. */
export interface Release {
  version: string;
  checksum: string;
}

export type Outcome =
  | { ok: true; name: string; before: Release; after: Release; notice?: string }
  | { ok: false; name: string; before: Release; message: string; reasons: FieldProblem[] };

const releaseOf = (p: Pick<Plugin, 'version' | 'package_checksum'>): Release => ({ version: p.version, checksum: p.package_checksum });

/** PATCHes `before` with the package `file`; never throws: a refusal is an outcome too. */
export async function updateWith(before: Pick<Plugin, 'name' | 'version' | 'package_checksum'>, file: File): Promise<Outcome> {
  const was = releaseOf(before);
  try {
    const after = await apiAs<Plugin>((charta) => charta.plugins.update(before.name, { package: { name: file.name, data: file } }));
    return { ok: true, name: before.name, before: was, after: releaseOf(after), ...(after.notice === undefined ? {} : { notice: after.notice }) };
  } catch (err) {
    return {
      ok: false,
      name: before.name,
      before: was,
      message: `${file.name}: ${messageOf(err)}`,
      reasons: err instanceof ApiError ? err.errors : [],
    };
  }
}

const short = (checksum: string) => checksum.slice(0, 12);

function ReleaseText({ release }: { release: Release }) {
  return (
    <>
      <span class="release-version">{release.version}</span> (
      <code class="release-checksum" title={`SHA-256 ${release.checksum}`}>
        {short(release.checksum)}…
      </code>
      )
    </>
  );
}

/** What an update did: before → after, or the refusal with the version that stays live. */
export function OutcomeText({ outcome }: { outcome: Outcome }) {
  if (outcome.ok) {
    const same = outcome.before.checksum === outcome.after.checksum;
    return (
      <div class="update-outcome ok" role="status">
        <p>
          {outcome.name} updated:{' '}
          <span class="before">
            <ReleaseText release={outcome.before} />
          </span>{' '}
          →{' '}
          <span class="after">
            <ReleaseText release={outcome.after} />
          </span>
          {same ? ' (the same package)' : ''}.
        </p>
        {outcome.notice !== undefined && <p class="notice">{outcome.notice}</p>}
      </div>
    );
  }
  return (
    <div class="update-outcome error" role="alert">
      <p>
        The new version was refused; {outcome.name}{' '}
        <span class="before">
          <ReleaseText release={outcome.before} />
        </span>{' '}
        stays live.
      </p>
      <p>{outcome.message}</p>
      <Reasons reasons={outcome.reasons} />
    </div>
  );
}

interface Props {
  plugin: Plugin;
  /** After an update, refused or not: the page reads the plugins again. */
  onDone: () => void;
}

/** A plugin card's "Upload a new version": a file input; the outcome stays shown under it until the next. */
export function NewVersion({ plugin, onDone }: Props) {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  const input = useRef<HTMLInputElement>(null);
  const id = `new-version-${plugin.name}`;

  const upload = async (file: File) => {
    setBusy(true);
    setOutcome(undefined);
    const result = await updateWith(plugin, file);
    setOutcome(result);
    setBusy(false);
    if (input.current) input.current.value = '';
    onDone();
  };

  return (
    <div class="new-version">
      <label for={id}>Upload a new version of {plugin.name}</label>
      <input
        id={id}
        ref={input}
        type="file"
        accept=".gz,.tgz,.tar.gz,.whl"
        disabled={busy}
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          if (file) void upload(file);
        }}
      />
      {busy && <p role="status">Uploading…</p>}
      {outcome && <OutcomeText outcome={outcome} />}
    </div>
  );
}
