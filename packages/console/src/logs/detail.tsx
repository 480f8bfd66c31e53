// The selected log line, whole (docs/console.md, "Live logs"): beside the list on a wide screen,
// under it on a narrow one. Every member the entry carries, by name (docs/api.md, "Log stream";
// `LogEntry` in packages/api/src/logs.ts: an entry has no stack, so none is shown), the whole
// message, and the entry as JSON with "Copy as JSON" (copy.ts).
import { useEffect, useRef, useState } from 'preact/hooks';
import { copyText } from './copy.ts';
import type { LogEntry, Row } from './entry.ts';
import { Copy, Icon } from '../icon.tsx';

/** The members shown as fields, in this order, with their labels; `event` is the message, below them. */
const FIELDS: Array<[keyof LogEntry, string]> = [
  ['level', 'Level'],
  ['timestamp', 'Time (UTC)'],
  ['source', 'Source'],
  ['plugin', 'Plugin'],
  ['handler', 'Handler'],
  ['event_type', 'Event type'],
  ['request_id', 'Request id'],
  ['success', 'Success'],
  ['fault', 'Fault'],
  ['tick', 'Tick'],
];
const KNOWN = new Set<string>([...FIELDS.map(([k]) => k), 'event']);

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

export function LineDetail({ row, onClose }: { row: Row; onClose: () => void }) {
  const pre = useRef<HTMLPreElement>(null);
  const [note, setNote] = useState<string | undefined>();
  const e = row.entry;
  const json = JSON.stringify(e, null, 2);
  useEffect(() => setNote(undefined), [row]);

  const copy = async () => {
    const outcome = await copyText(json, pre.current!);
    setNote(outcome === 'copied' ? 'Copied to the clipboard.' : 'Selected: press Ctrl+C (⌘C on a Mac) to copy.');
  };

  const fields: Array<[string, string]> = FIELDS.filter(([k]) => e[k] !== undefined).map(([k, label]) => [label, text(e[k])]);
  // A member this page does not know yet (a newer server) is shown by its own name.
  for (const [k, v] of Object.entries(e)) if (!KNOWN.has(k) && v !== undefined) fields.push([k, text(v)]);

  return (
    <section id="log-detail" class="log-detail" aria-labelledby="log-detail-title">
      <h3 id="log-detail-title">Selected line</h3>
      <p class="log-detail-message" id="log-detail-message">
        {row.dropped > 0 ? `⚠ Server: ${e.event}` : e.event}
      </p>
      <dl class="log-fields">
        {fields.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          <Icon node={Copy} />
          Copy as JSON
        </button>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
        {note !== undefined && (
          <span role="status" class="ok">
            {note}
          </span>
        )}
      </div>
      <h4>As JSON</h4>
      <pre id="log-detail-json" ref={pre}>
        {json}
      </pre>
    </section>
  );
}
