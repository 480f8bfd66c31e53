import fs from 'node:fs';

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

/**
 * CHARTA_TEST_SCHEDULER_CLOCK=<file>: the scheduler's time (runtime/scheduler.ts) is the ISO 8601
 * time written in the file, read at each of its passes (the real time while the file holds none),
 * so that tests step the ticks of every process sharing the file without waiting minutes.
 */
export function schedulerClock(): () => number {
  const file = process.env.CHARTA_TEST_SCHEDULER_CLOCK;
  if (file === undefined || file === '') return Date.now;
  return () => {
    let text = '';
    try {
      text = fs.readFileSync(file, 'utf8').trim();
    } catch {
      // no file yet: the real time
    }
    const at = Date.parse(text);
    return Number.isNaN(at) ? Date.now() : at;
  };
}

/** CHARTA_TEST_SCHEDULER_MS=<ms>: how often the scheduler looks for due ticks on its own (SCHEDULER_MS otherwise). */
export function schedulerMs(fallback: number): number {
  const ms = Number(process.env.CHARTA_TEST_SCHEDULER_MS);
  return Number.isInteger(ms) && ms > 0 ? ms : fallback;
}

/**
 * CHARTA_TEST_BACKUP_FULL_AFTER_PAGES=<n>: `charta-server backup` fails as a full disk fails it
 * (SQLITE_FULL) once n pages are copied (storage/sqlite-backup.ts), for a test that cannot mount a
 * small file system to fill (test/backup.int.test.ts uses a real one when it can).
 */
export function backupFullAfterPages(): number | undefined {
  const text = process.env.CHARTA_TEST_BACKUP_FULL_AFTER_PAGES;
  const pages = Number(text);
  return text !== undefined && text !== '' && Number.isInteger(pages) && pages >= 0 ? pages : undefined;
}
