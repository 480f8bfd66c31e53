// The plugin runner's child process, forked by src/runtime/runner/client.ts: dist/runner-child.mjs
// while it is up to date with the sources, else src/runtime/runner/child.ts through tsx's loader
// (docs/architecture.md, "Bundled entry points").
import { launch } from '../../../scripts/bundles.js';

await launch('runner-child');
