#!/usr/bin/env node
// charta: runs dist/charta.mjs while it is up to date with the sources, else the TypeScript
// sources through tsx's loader (docs/architecture.md, "Bundled entry points").
import { launch } from '../../../scripts/bundles.js';

await launch('charta');
