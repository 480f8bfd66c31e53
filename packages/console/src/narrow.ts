// A narrow screen (a phone): the width under which the stylesheets' narrow media queries apply
// (style.css, logs/logs.css, chart/chart.css), for the components that lay out differently there.
import { useEffect, useState } from 'preact/hooks';

/** The same as the stylesheets' narrow media query. */
export const NARROW = '(max-width: 40rem)';

/** Whether the screen is narrow now; the component renders again when it changes (a phone turned, a window resized). */
export function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => matchMedia(NARROW).matches);
  useEffect(() => {
    const query = matchMedia(NARROW);
    const changed = () => setNarrow(query.matches);
    query.addEventListener('change', changed);
    changed();
    return () => query.removeEventListener('change', changed);
  }, []);
  return narrow;
}
