// A plugin's dead letters (docs/console.md, "The plugins page"): how many, and each letter's
// event, handler, attempts and last error, with Replay (its event delivered again, to its one
// handler) and Discard (docs/api.md, "Dead letters").
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { DeadLetter } from './types.ts';
import { useNote } from './note.ts';
import { Icon, RefreshCw, RotateCcw, Trash2 } from '../icon.tsx';

/** The letters shown: the newest 100 (the count says how many there are). */
const SHOWN = 100;

export function DeadLetters({ plugin }: { plugin: string }) {
  const [letters, setLetters] = useState<DeadLetter[] | undefined>();
  const [count, setCount] = useState(0);
  const { note, failed, act: acted } = useNote();

  const load = useCallback(async () => {
    try {
      const page = await api((charta) => charta.plugins.deadLetters(plugin, { limit: SHOWN }));
      setLetters(page.results);
      setCount(page.count);
    } catch (err) {
      failed(err);
    }
  }, [plugin, failed]);
  useEffect(() => void load(), [load]);
  const act = (what: () => Promise<string>) => acted(what, load);
  const replay = (letter: DeadLetter) =>
    act(async () => {
      await api((charta) => charta.plugins.replayDeadLetter(plugin, letter.id));
      return `Dead letter ${letter.id} replayed: its event goes to ${letter.handler} again.`;
    });
  const discard = (letter: DeadLetter) =>
    act(async () => {
      await api((charta) => charta.plugins.discardDeadLetter(plugin, letter.id));
      return `Dead letter ${letter.id} discarded.`;
    });

  return (
    <details class="dead-letters">
      <summary>
        Dead letters: <span class="count">{letters === undefined ? '…' : count}</span>
      </summary>
      {note && (
        <p role={note.error ? 'alert' : 'status'} class={note.error ? 'error' : 'ok'}>
          {note.text}
        </p>
      )}
      {letters?.length === 0 && <p>No dead letters: every event reached its handlers.</p>}
      {letters !== undefined && count > letters.length && <p>Showing the newest {letters.length}.</p>}
      {letters !== undefined && letters.length > 0 && (
        <ol class="letters">
          {letters.map((l) => (
            <li key={l.id} class="dead-letter" data-letter={l.id}>
              <dl>
                <dt>Event</dt>
                <dd>
                  <code>{l.event_type}</code> of {l.target.type} <code>{l.target.id}</code> (event <code>{l.event_id}</code>)
                </dd>
                <dt>Handler</dt>
                <dd>
                  <code>{l.handler}</code>
                </dd>
                <dt>Attempts</dt>
                <dd class="attempts">{l.attempts}</dd>
                <dt>Last error</dt>
                <dd class="last-error">{l.last_error}</dd>
                <dt>Failed</dt>
                <dd>
                  <time dateTime={l.failed_at}>{l.failed_at.replace('T', ' ').slice(0, 19)}</time>
                </dd>
              </dl>
              <div class="actions">
                <button type="button" onClick={() => void replay(l)}>
                  <Icon node={RotateCcw} />
                  Replay #{l.id}
                </button>
                <button type="button" class="danger" onClick={() => void discard(l)}>
                  <Icon node={Trash2} />
                  Discard #{l.id}
                </button>
              </div>
            </li>
          ))}
        </ol>
      )}
      <button type="button" class="quiet" onClick={() => void load()}>
        <Icon node={RefreshCw} />
        Refresh dead letters
      </button>
    </details>
  );
}
