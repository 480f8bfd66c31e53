// Types of scripts/build-bundles.js (plain JavaScript, run by npm before tsx is there) for the TypeScript that imports it (the benchmark).
import type { EntryName } from './bundles.js';
export function buildBundle(name: EntryName): Promise<void>;
export function buildStaleBundles(): Promise<EntryName[]>;
