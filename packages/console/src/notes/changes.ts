// The note page's live view (docs/console.md, "Patients and notes"): the change stream of its note
// (docs/api.md, "Change stream"), authenticated in the first message with the signed-in token;
// a 4401 (expired or revoked) signs the console out, as any refused request does.
import type { RecordChange } from '@charta/client';
import { clientOf } from '../api.ts';
import { refused, secretOf, signedIn, type Credentials } from '../session.ts';

const UNAUTHORIZED = 4401;

export function followNote(patientKey: string, noteKey: string, handlers: { onChange(c: RecordChange): void; onReady(): void }): () => void {
  let who: Credentials | undefined;
  const follow = clientOf(undefined).changes.follow({
    patientKey,
    noteKey,
    token: () => {
      who = signedIn();
      return who?.kind === 'oauth' ? secretOf(who) : undefined;
    },
    onChange: handlers.onChange,
    onReady: handlers.onReady,
    onRefused: (code) => {
      if (code === UNAUTHORIZED && who !== undefined) refused(who);
    },
  });
  return () => follow.close();
}
