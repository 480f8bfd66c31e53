// Hash routing (docs/console.md, "Pages and addresses"): the page is chosen by `location.hash`
// from one table of routes. The hash holds only a page name and a record's key or uuid: never a
// credential, a token or a search term.
import { useEffect, useState } from 'preact/hooks';

/** The nav entries; a route names the one it belongs to, marked with aria-current. */
export type Section = 'plugins' | 'patients' | 'logs' | 'audit';

export interface Route {
  /** The hash it answers, without `#`; groups are the parameters. */
  pattern: RegExp;
  section: Section;
  /** The route's name, for the page to switch on. */
  name: string;
}

export const ROUTES: Route[] = [
  { pattern: /^(?:plugins)?$/, section: 'plugins', name: 'plugins' },
  // `#logs?plugin=NAME`: filtered to one plugin (logs/address.ts).
  { pattern: /^logs(?:\?[^/#]*)?$/, section: 'logs', name: 'logs' },
  { pattern: /^patients$/, section: 'patients', name: 'patients' },
  { pattern: /^audit$/, section: 'audit', name: 'audit' },
  { pattern: /^patients\/([0-9a-f]{32})$/, section: 'patients', name: 'patient' },
  { pattern: /^notes\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/, section: 'patients', name: 'note' },
];

export interface Location {
  route: Route | undefined;
  params: string[];
  hash: string;
}

/** The route of a hash (`#patients/…`), or no route for an unknown one. */
export function locate(hash: string): Location {
  const path = hash.replace(/^#\/?/, '');
  for (const route of ROUTES) {
    const m = route.pattern.exec(path);
    if (m) return { route, params: m.slice(1), hash: path };
  }
  return { route: undefined, params: [], hash: path };
}

/** The current location, following `hashchange`. */
export function useLocation(): Location {
  const [where, setWhere] = useState(() => locate(location.hash));
  useEffect(() => {
    const follow = () => setWhere(locate(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return where;
}

/** The hash of a page: `href` for a link. */
export const hrefOf = {
  patients: () => '#patients',
  patient: (key: string) => `#patients/${key}`,
  note: (uuid: string) => `#notes/${uuid}`,
};
