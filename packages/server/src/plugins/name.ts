// Plugin names as a path or a filter names them (docs/api.md, "Plugins"): the original tool
// writes `plugin_boilerplate` where Charta's slug is `plugin-boilerplate`, so `_` and `-` are
// the same character in a plugin name.
export function normalizePluginName(raw: string): string {
  return raw.replace(/_/g, '-');
}
