// The plugin and its dead letters as the plugin API answers them (docs/api.md, "Plugins", "Dead
// letters"): the wire's types (@charta/api), and the plugin API's paths.
export type { DeadLetter, Plugin } from '@charta/api';

export const PLUGINS = '/core/api/v1/plugins/';

export const pluginPath = (name: string) => `${PLUGINS}${encodeURIComponent(name)}/`;
