// Storage's own errors and the drivers' raw ones map to the catalog problems docs/errors.md
// lists for the database (http/storage-errors.ts); anything else is no storage fault.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isStorageFault, storageProblem } from '../src/http/storage-errors.ts';
import {
  DatabaseBusyError,
  DatabaseUnavailableError,
  IdempotencyKeyReusedError,
  OutcomeUnknownError,
  ReadOnlyError,
  StorageFullError,
} from '../src/storage/errors.ts';

const coded = (code: string, message = 'driver error') => Object.assign(new Error(message), { code });

describe('storage errors as problems', () => {
  it('maps each storage error to its problem, with Retry-After where a retry helps', () => {
    const cases: Array<[Error, string, number, string | null]> = [
      [new IdempotencyKeyReusedError(), 'idempotency_key_reused', 422, null],
      [new DatabaseUnavailableError('away'), 'database_unavailable', 503, '2'],
      [new OutcomeUnknownError('broke during COMMIT'), 'write_outcome_unknown', 503, '2'],
      [new StorageFullError('full'), 'storage_full', 507, null],
      [new ReadOnlyError('read-only'), 'database_read_only', 503, '2'],
      [new DatabaseBusyError('locked'), 'database_busy', 503, '2'],
    ];
    for (const [error, code, status, retryAfter] of cases) {
      assert.ok(isStorageFault(error), error.name);
      const p = storageProblem(error);
      assert.equal(p.code, code, error.name);
      assert.equal(p.status, status, error.name);
      assert.equal(p.headers?.['retry-after'] ?? null, retryAfter, `${error.name}: Retry-After`);
    }
  });

  it('names the drivers’ raw errors', () => {
    const cases: Array<[Error, string]> = [
      [coded('57P01', 'terminating connection due to administrator command'), 'database_unavailable'],
      [coded('ECONNREFUSED'), 'database_unavailable'],
      [coded('08006'), 'database_unavailable'],
      [new Error('Connection terminated unexpectedly'), 'database_unavailable'],
      [coded('55000', 'database "x" is not currently accepting connections'), 'database_unavailable'],
      [coded('SQLITE_FULL'), 'storage_full'],
      [coded('SQLITE_READONLY_DBMOVED'), 'database_read_only'],
      [coded('SQLITE_BUSY'), 'database_busy'],
      [coded('SQLITE_IOERR_WRITE'), 'database_unavailable'],
    ];
    for (const [error, code] of cases) assert.equal(storageProblem(error).code, code, `${(error as { code?: string }).code ?? error.message}`);
  });

  it('leaves everything else alone (a constraint, a bug)', () => {
    for (const error of [coded('23505'), coded('SQLITE_CONSTRAINT_UNIQUE'), new TypeError('x is undefined'), coded('55000', 'lock not available')]) {
      assert.equal(isStorageFault(error), false, error.message);
    }
  });
});
