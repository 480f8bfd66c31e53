// The live logs page's address (docs/console.md, "Live logs"): `#logs`, or `#logs?plugin=NAME`
// to open it filtered to one plugin (the plugins page links there). Only the plugin filter is in
// the address: a plugin's name is a record's name, never a credential or a search term.

/** The hash of the live logs page, filtered to `plugin` when one is given: an `href`. */
export function logsHref(plugin?: string): string {
  return plugin === undefined || plugin === '' ? '#logs' : `#logs?plugin=${encodeURIComponent(plugin)}`;
}

/** The plugin filter a hash asks for (`#logs?plugin=NAME`), '' for none. */
export function pluginOfHash(hash: string): string {
  const q = hash.indexOf('?');
  if (q < 0) return '';
  return new URLSearchParams(hash.slice(q + 1)).get('plugin') ?? '';
}
