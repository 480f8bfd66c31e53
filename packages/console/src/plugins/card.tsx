// One installed plugin: its name, a "Cannot run" badge with the reason for a package that can
// never run here (a Python package of the original tool), version, checksum, state, where it stands in the runtime (a
// failing load with its reason and next try), its health (Enabled · failing) and recent faults (the
// last error's time, handler and event), its grants, its dead letters, and what can be done to it
// (a new version uploaded in place among them).
import { logsHref } from '../logs/address.ts';
import { useState } from 'preact/hooks';
import { Secrets } from './secrets.tsx';
import { RecentLogs } from './logs.tsx';
import { DeadLetters } from './dead-letters.tsx';
import { Reads } from './reads.tsx';
import { NewVersion } from './new-version.tsx';
import type { Plugin } from './types.ts';
import { Download, Icon, KeyRound, Power, PowerOff, Trash2 } from '../icon.tsx';

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

/**
 * The plugin's health in a word or two: Disabled; Enabled; "Enabled · failing" (a failure in the
 * last hour since it last changed, or its load failing), in the warning colour; "Enabled · failed in
 * the last day" (a fixed version uploaded since, or an older failure).
 */
function Health({ plugin }: { plugin: Plugin }) {
  const { last_hour: hour, last_day: day, last_error: last } = plugin.faults;
  if (!plugin.is_enabled) return <dd class="disabled health">Disabled</dd>;
  const sinceChange = last !== null && Date.parse(last.timestamp) >= Date.parse(plugin.updated_at);
  if ((hour.failures > 0 && sinceChange) || plugin.runtime.state === 'failing') return <dd class="enabled failing health">Enabled · failing</dd>;
  if (day.failures > 0) return <dd class="enabled failed-today health">Enabled · failed in the last day</dd>;
  return <dd class="enabled health">Enabled</dd>;
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** Failures and timeouts over the last hour and day, and the last error: when (local time, UTC on hover), which handler, which event, what. */
function Faults({ plugin }: { plugin: Plugin }) {
  const { last_hour: hour, last_day: day, last_error: last } = plugin.faults;
  if (day.failures === 0) return <dd class="faults none">None in the last day</dd>;
  return (
    <dd class="faults">
      <span class="fault-counts">
        Last hour: {count(hour.failures, 'failure')}, {count(hour.timeouts, 'timeout')}; last day: {count(day.failures, 'failure')},{' '}
        {count(day.timeouts, 'timeout')}
      </span>
      {last !== null && (
        <span class="last-fault">
          Last error at{' '}
          <time dateTime={last.timestamp} title={`${last.timestamp} (UTC)`}>
            {new Date(last.timestamp).toLocaleString()}
          </time>
          {last.handler !== null && (
            <>
              {' '}
              in <code class="fault-handler">{last.handler}</code>
            </>
          )}
          {last.event_type !== null && (
            <>
              {' '}
              on <code class="fault-event">{last.event_type}</code>
            </>
          )}
          {last.fault !== null && <> ({last.fault})</>}: <span class="fault-message">{last.message}</span>
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
  /** After "Upload a new version", refused or not. */
  onUpdated: () => void;
}

export function PluginCard({ plugin, onToggle, onDownload, onDelete, onUpdated }: Props) {
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
        <Health plugin={p} />
        <dt>Runtime</dt>
        <Runtime plugin={p} />
        <dt>Faults</dt>
        <Faults plugin={p} />
        <dt>Logs</dt>
        <dd class="logs-link">
          {/* The live logs page has no plugin filter in its address yet: the link opens it, the hint says what to pick. Its name must not contain "Live logs", the nav link's. */}
          <a href={logsHref(p.name)}>Logs of {p.name}</a>
        </dd>
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
      <NewVersion plugin={p} onDone={onUpdated} />
      <DeadLetters plugin={p.name} />
      <Reads plugin={p.name} />
      <div class="actions">
        <button type="button" onClick={() => onToggle(p)}>
          <Icon node={p.is_enabled ? PowerOff : Power} />
          {p.is_enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" class="secondary" onClick={() => onDownload(p)}>
          <Icon node={Download} />
          Download package
        </button>
        <button type="button" class="secondary" aria-expanded={open} aria-controls={details} onClick={() => setOpen(!open)}>
          <Icon node={KeyRound} />
          {open ? 'Hide secrets and logs' : 'Secrets and logs'}
        </button>
        <button type="button" class="danger" onClick={() => onDelete(p)}>
          <Icon node={Trash2} />
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
