// The plugin as GET /core/api/v1/plugins/ answers it (docs/api.md, "Plugins").
export interface Plugin {
  name: string;
  description: string;
  version: string;
  package_checksum: string;
  is_enabled: boolean;
  /** What an administrator allowed it past its default reach (docs/plugins.md, "Grants"). */
  grants: string[];
  created_at: string;
  updated_at: string;
}

export const PLUGINS = '/core/api/v1/plugins/';

export const pluginPath = (name: string) => `${PLUGINS}${encodeURIComponent(name)}/`;
