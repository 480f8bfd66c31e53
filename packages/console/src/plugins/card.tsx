// One installed plugin: its name, version, checksum, state and grants, its dead letters, and what
// can be done to it.
import { useState } from 'preact/hooks';
import { Secrets } from './secrets.tsx';
import { RecentLogs } from './logs.tsx';
import { DeadLetters } from './dead-letters.tsx';
import type { Plugin } from './types.ts';

interface Props {
  plugin: Plugin;
  onToggle: (plugin: Plugin) => void;
  onDownload: (plugin: Plugin) => void;
  onDelete: (plugin: Plugin) => void;
}

export function PluginCard({ plugin, onToggle, onDownload, onDelete }: Props) {
  const [open, setOpen] = useState(false);
  const p = plugin;
  const details = `details-${p.name}`;
  return (
    <li class="plugin" data-plugin={p.name}>
      <h3>{p.name}</h3>
      {p.description && <p class="description">{p.description}</p>}
      <dl>
        <dt>Version</dt>
        <dd class="version">{p.version}</dd>
        <dt>State</dt>
        <dd class={p.is_enabled ? 'enabled' : 'disabled'}>{p.is_enabled ? 'Enabled' : 'Disabled'}</dd>
        <dt>Grants</dt>
        <dd>
          {p.grants.length === 0 ? (
            <span class="no-grants">None</span>
          ) : (
            <ul class="grants" aria-label={`Grants of ${p.name}`}>
              {p.grants.map((grant) => (
                <li key={grant} class="grant">
                  {grant}
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Checksum (SHA-256)</dt>
        <dd>
          <code class="checksum">{p.package_checksum}</code>
        </dd>
      </dl>
      <DeadLetters plugin={p.name} />
      <div class="actions">
        <button type="button" onClick={() => onToggle(p)}>
          {p.is_enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" class="secondary" onClick={() => onDownload(p)}>
          Download package
        </button>
        <button type="button" class="secondary" aria-expanded={open} aria-controls={details} onClick={() => setOpen(!open)}>
          {open ? 'Hide secrets and logs' : 'Secrets and logs'}
        </button>
        <button type="button" class="danger" onClick={() => onDelete(p)}>
          Delete
        </button>
      </div>
      {open && (
        <div id={details} class="details">
          <Secrets plugin={p.name} />
          <RecentLogs plugin={p.name} />
        </div>
      )}
    </li>
  );
}
