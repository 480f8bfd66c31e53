// The plugin and its dead letters as the plugin API answers them (docs/api.md, "Plugins", "Dead
// letters"): the wire's types (@charta/api).
export type { DeadLetter, Plugin } from '@charta/api';
