// PostgreSQL's client programs for the backup tests (docs/operations.md, "Backup and restore"):
// pg_dump and pg_restore found on PATH (or in CHARTA_PG_BIN). Their policy mirrors the browser
// tests' for Chromium (console/test/support/browser.ts): without them a test file reports one skip
// line naming what it looked for; with CI=true that is a failure instead, never a silent pass.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ENGINES } from './harness.ts';

export interface PgTools {
  pgDump: string;
  pgRestore: string;
}

const inCi = process.env.CI === 'true';

/** An executable named `name` in CHARTA_PG_BIN, else on PATH. */
function find(name: string): string | undefined {
  const dirs = process.env.CHARTA_PG_BIN ? [process.env.CHARTA_PG_BIN] : (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of dirs) {
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The tools, or what is missing as a skip message (outside CI) or a failure (CI=true). */
export function pgToolsStatus(): { tools: PgTools | undefined; skip: string | false; failure: string | undefined } {
  const pgDump = find('pg_dump');
  const pgRestore = find('pg_restore');
  if (pgDump !== undefined && pgRestore !== undefined) return { tools: { pgDump, pgRestore }, skip: false, failure: undefined };
  const missing = [pgDump === undefined ? 'pg_dump' : undefined, pgRestore === undefined ? 'pg_restore' : undefined].filter(Boolean).join(' and ');
  const where = process.env.CHARTA_PG_BIN ? `in CHARTA_PG_BIN (${process.env.CHARTA_PG_BIN})` : 'on PATH';
  const message = `${missing} not found ${where}: install PostgreSQL's client programs (apt-get install -y postgresql-client) or set CHARTA_PG_BIN`;
  return inCi
    ? { tools: undefined, skip: false, failure: `${message} (CI=true: the PostgreSQL backup tests may not be skipped)` }
    : { tools: undefined, skip: message, failure: undefined };
}

/**
 * The frame of a test file's PostgreSQL backup suite, declared when the run includes PostgreSQL
 * (CHARTA_TEST_ENGINES): `body` declares its tests (given the tools) inside `describe(name)`;
 * without the tools, one line instead: a skip naming them, or (CI=true) a failure.
 */
export function describeWithPgTools(name: string, body: (tools: PgTools) => void): void {
  if (!ENGINES.includes('postgres')) return;
  const status = pgToolsStatus();
  if (status.tools === undefined) it(name, { skip: status.skip }, () => assert.fail(status.failure));
  else describe(name, () => body(status.tools!));
}
