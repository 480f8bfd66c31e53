// A plugin's recent log lines, from GET /core/api/v1/logging/recent/ (docs/api.md, "Log
// stream"): a plain authenticated request, as a browser cannot set a WebSocket's headers.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { apiAs, messageOf } from '../api.ts';
import { Alert } from '../alert.tsx';
import { Icon, RefreshCw } from '../icon.tsx';

interface Entry {
  event: string;
  level: string;
  timestamp: string;
  success?: boolean;
}

export function RecentLogs({ plugin }: { plugin: string }) {
  const [entries, setEntries] = useState<Entry[] | undefined>();
  const [error, setError] = useState<string | undefined>();

  const load = useCallback(() => {
    apiAs<Entry[]>((charta) => charta.logs.recent({ plugin, limit: 50 })).then(
      (results) => {
        setEntries(results);
        setError(undefined);
      },
      (err) => setError(messageOf(err)),
    );
  }, [plugin]);
  useEffect(load, [load]);

  return (
    <section class="logs" aria-label={`Recent log lines of ${plugin}`}>
      <h4>Recent log lines</h4>
      <button type="button" class="quiet" onClick={load}>
        <Icon node={RefreshCw} />
        Refresh log lines
      </button>
      <Alert message={error} />
      {entries && entries.length === 0 && <p>No recent lines.</p>}
      {entries && entries.length > 0 && (
        <ol class="lines">
          {entries.map((e, i) => (
            <li key={i} class={`level-${e.level}${e.success === false ? ' failure' : ''}`}>
              <time dateTime={e.timestamp}>{e.timestamp.replace('T', ' ').slice(0, 19)}</time> <span class="level">{e.level}</span> {e.event}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
