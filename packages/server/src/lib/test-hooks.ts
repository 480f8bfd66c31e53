// Hooks for the tests only (docs/architecture.md, "Test hooks"), read from the environment when
// the piece that uses them is made. No deployment sets them, and the configuration
// (config.ts, docs/configuration.md) does not know them.

/**
 * CHARTA_TEST_REWORD_LOGS=1: every log stream line's text is reworded as it is emitted (logs/bus.ts),
 * so a test proves that nothing the instance does depends on what a log line says (the runtime
 * reacts to signals: docs/architecture.md, "Signals").
 */
export function rewordLogs(): ((event: string) => string) | undefined {
  return process.env.CHARTA_TEST_REWORD_LOGS === '1' ? (event) => `REWORDED: ${event.toUpperCase()}` : undefined;
}

/**
 * CHARTA_TEST_PLUGIN_POLL_MS=<ms>: how often the plugin runtime looks for changes and undelivered
 * events on its own (runtime/index.ts, POLL_MS otherwise): a test that lengthens it proves that the
 * signals, not the poll, carry a change.
 */
export function pluginPollMs(fallback: number): number {
  const ms = Number(process.env.CHARTA_TEST_PLUGIN_POLL_MS);
  return Number.isInteger(ms) && ms > 0 ? ms : fallback;
}
