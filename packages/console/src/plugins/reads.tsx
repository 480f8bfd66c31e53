// What a plugin read of the record (docs/console.md, "The plugins page"; docs/plugins.md,
// "Reading the record"): its newest reads from the audit trail, each read, the patient it was
// about, how many rows it gave, or why it was refused (docs/api.md, "Plugins").
import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api.ts';
import { Alert } from '../alert.tsx';
import { When } from '../clinical/when.tsx';
import { ScrollRegion } from '../scroll-region.tsx';
import type { PluginRead } from '@charta/api';

/** The reads shown: the newest 50 (the count says how many there are). */
const SHOWN = 50;

export function Reads({ plugin }: { plugin: string }) {
  const [reads, setReads] = useState<PluginRead[] | undefined>();
  const [count, setCount] = useState(0);
  const [error, setError] = useState<string | undefined>();
  const [open, setOpen] = useState(false);

  // Read when opened (and each time it is opened again): the trail grows while the page is open.
  useEffect(() => {
    if (!open) return;
    api((charta) => charta.plugins.reads(plugin, { limit: SHOWN })).then(
      (page) => {
        setReads(page.results);
        setCount(page.count);
        setError(undefined);
      },
      (err: unknown) => setError(messageOf(err)),
    );
  }, [open, plugin]);

  return (
    <details class="reads" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Reads of the record{reads === undefined ? '' : `: ${count}`}</summary>
      <Alert message={error} />
      {reads?.length === 0 && <p>No reads: this plugin has read nothing of the record.</p>}
      {reads !== undefined && count > reads.length && <p>Showing the newest {reads.length}.</p>}
      {reads !== undefined && reads.length > 0 && (
        <ScrollRegion label={`Reads of ${plugin}, scrolling sideways`}>
          <table aria-label={`Reads of ${plugin}`}>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Read</th>
                <th scope="col">Patient</th>
                <th scope="col">Rows</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {reads.map((r) => (
                <tr key={r.id} class={r.refused === null ? 'read' : 'read refused'}>
                  <td>
                    <When iso={r.occurred_at} />
                  </td>
                  <td>
                    <code>{r.read}</code>
                  </td>
                  <td>{r.patient_key === null ? '–' : <code>{r.patient_key}</code>}</td>
                  <td>{r.rows}</td>
                  <td>{r.refused === null ? 'given' : `refused: ${r.refused}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </details>
  );
}
