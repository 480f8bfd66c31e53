// Types of scripts/bundles.js (plain JavaScript: the bins import it before tsx is loaded) for the tests that import it.
export type EntryName = 'charta' | 'charta-server' | 'runner-child' | 'local-runtime' | 'server';
export const ROOT: string;
export const ENTRIES: Record<EntryName, { source: string; bundle: string }>;
export function sourcesFile(bundle: string): string;
export function digestOf(files: string[], read: (file: string) => string | null | undefined): string | null;
export function bundleState(root: string, bundle: string): 'fresh' | 'stale' | 'missing';
export function entryFor(name: EntryName): { url: string; needsTsx: boolean };
export function importEntry(name: EntryName): Promise<unknown>;
export function launch(name: EntryName): Promise<void>;
