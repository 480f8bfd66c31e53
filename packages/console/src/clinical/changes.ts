// The clinical pages' live view (docs/console.md, "Patients and notes"): the change stream of a
// patient, or of one of their notes (docs/api.md, "Change stream"), authenticated in the first
// message with the signed-in token; a 4401 (expired or revoked) signs the console out, as any
// refused request does.
import type { RecordChange } from '@charta/client';
import { clientOf } from '../api.ts';
import { refused, secretOf, signedIn, type Credentials } from '../session.ts';

const UNAUTHORIZED = 4401;

/** Follows the patient's record (or one note of it, with `noteKey`) until the answer is called. */
export function followRecord(patientKey: string, noteKey: string | undefined, handlers: { onChange(c: RecordChange): void; onReady(): void }): () => void {
  let who: Credentials | undefined;
  const follow = clientOf(undefined).changes.follow({
    patientKey,
    ...(noteKey === undefined ? {} : { noteKey }),
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
