// Types of scripts/console-build.js (plain JavaScript: the test runner imports it) for the tests that import it.
export const CONSOLE_DIST: string;
export function consoleBuildState(): 'missing' | string | null;
export function buildConsole(): void;
