// The node:test reporter of `charta plugin test` (docs/cli.md, "charta plugin test"): one JSON
// line per test on its stdout, in the charta envelope (`success`, `message`, and `test`, `file`,
// `outcome`, `duration_ms`, `error` for a failure), which the command passes on and counts. What
// the tests themselves print goes to stderr, so stdout stays JSON lines. Plain JavaScript: the
// test runner the command starts loads its reporters before any loader (tsx) applies.
import path from 'node:path';
import process from 'node:process';

/** The message of a failed test: its own error (node wraps it in ERR_TEST_FAILURE, the original as `cause`). */
function errorOf(details) {
  const error = details?.error;
  const cause = error?.cause;
  const text = cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : (error?.message ?? 'failed');
  return String(text).trim();
}

/** @param {AsyncIterable<{ type: string, data: any }>} source node:test's events */
export default async function* reporter(source) {
  // The names of the suites and tests under way in each file, by nesting, to name a test by its path.
  const open = new Map();
  // The start of what each file wrote to stderr: why a file that could not run failed.
  const stderr = new Map();
  for await (const { type, data } of source) {
    const file = data.file === undefined ? '' : path.relative(process.cwd(), data.file);
    if (type === 'test:start') {
      const names = (open.get(file) ?? []).slice(0, data.nesting);
      names[data.nesting] = data.name;
      open.set(file, names);
    } else if (type === 'test:stdout' || type === 'test:stderr') {
      process.stderr.write(data.message ?? '');
      if (type === 'test:stderr') stderr.set(file, `${stderr.get(file) ?? ''}${data.message ?? ''}`.slice(0, 4000));
    } else if ((type === 'test:pass' || type === 'test:fail') && data.details?.type !== 'suite') {
      // A file that failed as a whole (it could not be loaded, say) is named by its path.
      const whole = data.file !== undefined && data.name === data.file;
      const test = whole ? file : [...(open.get(file) ?? []).slice(0, data.nesting), data.name].join(' › ');
      const outcome = type === 'test:fail' ? 'fail' : data.skip !== undefined ? 'skip' : data.todo !== undefined ? 'todo' : 'pass';
      const thrown = whole ? (stderr.get(file) ?? '').split('\n').find((line) => /Error\b/.test(line)) : undefined;
      const error = outcome === 'fail' ? (thrown?.trim() ?? errorOf(data.details)) : undefined;
      const line = {
        success: outcome !== 'fail',
        message: `${outcome}: ${test}${error === undefined ? '' : `: ${error}`}`,
        test,
        file,
        outcome,
        duration_ms: Math.round(data.details?.duration_ms ?? 0),
        ...(error === undefined ? {} : { error }),
      };
      yield `${JSON.stringify(line)}\n`;
    }
  }
}
