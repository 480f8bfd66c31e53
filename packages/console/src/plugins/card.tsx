// One installed plugin: its name, a "Cannot run" badge with the reason for a package that can
// never run here (a Python package of the original tool), version, checksum, state, where it stands in the runtime (a
// failing load with its reason and next try) and its recent faults, its grants, its dead letters,
// and what can be done to it.
import { useState } from 'preact/hooks';
import { Secrets } from './secrets.tsx';
import { RecentLogs } from './logs.tsx';
import { DeadLetters } from './dead-letters.tsx';
import { Reads } from './reads.tsx';
import type { Plugin } from './types.ts';

const RUNTIME: Record<Plugin['runtime']['state'], string> = {
  running: 'Running',
  loading: 'Loading',
  failing: 'Failing to load',
  'cannot-run': 'Cannot run here',
  stopped: 'Stopped',
};

const time = (iso: string) => new Date(iso).toLocaleTimeString();

function Runtime({ plugin }: { plugin: Plugin }) {
  const { runtime } = plugin;
  return (
    <dd class={`runtime ${runtime.state}`}>
      <span class="runtime-state">{RUNTIME[runtime.state]}</span>
      {runtime.detail !== null && <span class="runtime-detail">{runtime.detail}</span>}
      {runtime.retry_at !== null && (
        <span class="runtime-retry">
          Next try at {time(runtime.retry_at)} ({runtime.failed_loads} failed load{runtime.failed_loads === 1 ? '' : 's'} in a row)
        </span>
      )}
    </dd>
  );
}

function Faults({ plugin }: { plugin: Plugin }) {
  const { last_hour: hour, last_day: day, last_error: last } = plugin.faults;
  if (day.failures === 0) return <dd class="faults none">None in the last day</dd>;
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  return (
    <dd class="faults">
      <span>
        Last hour: {count(hour.failures, 'failure')}, {count(hour.timeouts, 'timeout')}; last day: {count(day.failures, 'failure')},{' '}
        {count(day.timeouts, 'timeout')}
      </span>
      {last !== null && (
        <span class="last-fault">
          Last at {time(last.timestamp)}: {last.message}
        </span>
      )}
    </dd>
  );
}

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
      {!p.runnable && (
        <p class="not-runnable">
          <span class="badge-not-runnable">Cannot run</span> <span class="runnable-reason">{p.runnable_reason}</span>
        </p>
      )}
      {p.description && <p class="description">{p.description}</p>}
      <dl>
        <dt>Version</dt>
        <dd class="version">{p.version}</dd>
        <dt>State</dt>
        <dd class={p.is_enabled ? 'enabled' : 'disabled'}>{p.is_enabled ? 'Enabled' : 'Disabled'}</dd>
        <dt>Runtime</dt>
        <Runtime plugin={p} />
        <dt>Faults</dt>
        <Faults plugin={p} />
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
        <dt>Reads</dt>
        <dd class="data-access">
          {p.data.read.length === 0
            ? 'Nothing of the record'
            : `${p.data.read.join(', ')}: ${p.data.scope === 'instance' ? 'any patient' : "the event's patient"}`}
        </dd>
        <dt>Routes</dt>
        <dd class="routes">
          {p.routes.length === 0 ? (
            <span class="none">None</span>
          ) : (
            <ul aria-label={`Routes of ${p.name}`}>
              {p.routes.map((r) => (
                <li key={`${r.method} ${r.path}`} class="route">
                  <code>
                    {r.method} {r.url}
                  </code>{' '}
                  {r.auth === 'public' ? (
                    <span class="badge public" title="Anyone may call it, without credentials">
                      public
                    </span>
                  ) : (
                    <span class="badge">{r.auth === 'secret' ? `secret (${r.signature_header})` : r.auth}</span>
                  )}
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Schedules</dt>
        <dd class="schedules">
          {p.schedules.length === 0 ? (
            <span class="none">None</span>
          ) : (
            <ul aria-label={`Schedules of ${p.name}`}>
              {p.schedules.map((s) => (
                <li key={s.handler} class="schedule">
                  <code>{s.schedule}</code> UTC{s.next_tick === null ? '' : `, next ${s.next_tick.replace('T', ' ').slice(0, 16)}`}
                  {s.last_tick === null ? '' : `, last ${s.last_tick.replace('T', ' ').slice(0, 16)}`}
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
      <Reads plugin={p.name} />
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
