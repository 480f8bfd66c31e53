// An instant as the clinical pages show it: in the browser's time zone, UTC on hover.
import { utc, when } from './format.ts';

export function When({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={utc(iso)}>
      {when(iso)}
    </time>
  );
}
