// The server's runtime of a plugin outside an instance (`@charta/server/local-runtime`:
// docs/plugins.md, "Testing a plugin"), loaded only by the commands that run a plugin (`plugin
// test`, `plugin run`) when they run: from its own bundle while it is fresh, else from its sources
// through tsx (docs/architecture.md, "Bundled entry points"). Inlined in the charta bundle, it
// would load the runner's host side, the package reader and the API's schemas at every start of
// every command.
import type * as LocalRuntime from '@charta/server/local-runtime';

export type { LocalRuntime };

/** scripts/bundles.js: plain JavaScript, imported by a URL that esbuild leaves alone (the bundle inlines TypeScript only). */
const BUNDLES = new URL('../../../../scripts/bundles.js', import.meta.url).href;

export async function localRuntime(): Promise<typeof LocalRuntime> {
  const bundles = (await import(BUNDLES)) as typeof import('../../../../scripts/bundles.js');
  return (await bundles.importEntry('local-runtime')) as typeof LocalRuntime;
}
