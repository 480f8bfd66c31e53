// What a panel of the plugins page says about its last action (docs/console.md, "The plugins
// page"): the action's own message, or why it failed; the plugin list and each plugin's dead
// letters keep one each.
import { useCallback, useState } from 'preact/hooks';
import { messageOf } from '../api.ts';

export interface Note {
  text: string;
  error: boolean;
}

export function useNote() {
  const [note, setNote] = useState<Note | undefined>();
  /** A read that failed: its reason as the note. */
  const failed = useCallback((err: unknown) => setNote({ text: messageOf(err), error: true }), []);
  /** Runs an action (its message, or its failure, becomes the note), then `reload`. */
  const act = async (what: () => Promise<string>, reload: () => Promise<void>) => {
    try {
      setNote({ text: await what(), error: false });
    } catch (err) {
      failed(err);
    }
    await reload();
  };
  /** Forgets the note (a new action starts elsewhere on the page, which will say how it went). */
  const clear = useCallback(() => setNote(undefined), []);
  return { note, failed, act, clear };
}
