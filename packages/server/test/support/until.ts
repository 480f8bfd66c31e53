// The one way a test waits for something asynchronous (docs/architecture.md, "Tests"): poll a
// check until it answers, fail with what was awaited (and what the test says of the moment) when
// it does not in time. No test sleeps for a fixed time to let something happen.
import assert from 'node:assert/strict';

export interface UntilOptions {
  /** How long to wait at most (default 15 s). */
  ms?: number;
  /** How often to check (default every 25 ms). */
  every?: number;
  /** Said in the failure: what the test knows of the moment (the latest log lines…). */
  context?: () => string;
}

/**
 * Polls `test` until it answers something other than undefined or false, and answers that; fails
 * naming `what` after `options.ms` (or a number: the ms).
 */
export async function until<T>(
  what: string,
  test: () => Promise<T | undefined | false> | T | undefined | false,
  options: UntilOptions | number = {},
  context?: () => string,
): Promise<T> {
  const { ms = 15_000, every = 25, context: told = context ?? (() => '') } = typeof options === 'number' ? { ms: options } : options;
  const end = Date.now() + ms;
  for (;;) {
    const found = await test();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > end) assert.fail(`timed out after ${ms} ms waiting for ${what}${told() ? `; ${told()}` : ''}`);
    await new Promise((r) => setTimeout(r, every));
  }
}
