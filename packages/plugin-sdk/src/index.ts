// @charta/plugin-sdk: what a Charta plugin imports. Kept free of runtime dependencies so a
// plugin's bundle stays small; the manifest's JSON Schema and validator are in
// `@charta/plugin-sdk/manifest`.
export * from './effects.ts';
export * from './events.ts';
export * from './handler.ts';
export * from './surface.ts';
export { slugify } from './slug.ts';

/** The SDK's version, written into a new plugin's manifest as `sdk_version`. */
export const SDK_VERSION = '0.1.0';
