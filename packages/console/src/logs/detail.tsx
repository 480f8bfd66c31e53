// The selected log line, whole, as JSON, with "Copy as JSON" (copy.ts): the list shows one
// truncated line per entry; this shows every member of the one picked.
import { useEffect, useRef, useState } from 'preact/hooks';
import { copyText } from './copy.ts';
import type { Row } from './entry.ts';

export function LineDetail({ row, onClose }: { row: Row; onClose: () => void }) {
  const pre = useRef<HTMLPreElement>(null);
  const [note, setNote] = useState<string | undefined>();
  const json = JSON.stringify(row.entry, null, 2);
  useEffect(() => setNote(undefined), [row]);

  const copy = async () => {
    const outcome = await copyText(json, pre.current!);
    setNote(outcome === 'copied' ? 'Copied to the clipboard.' : 'Selected: press Ctrl+C (⌘C on a Mac) to copy.');
  };

  return (
    <section class="log-detail panel" aria-labelledby="log-detail-title">
      <h3 id="log-detail-title">Selected line</h3>
      <pre id="log-detail-json" ref={pre}>
        {json}
      </pre>
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
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
    </section>
  );
}
