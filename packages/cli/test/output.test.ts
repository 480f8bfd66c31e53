// The envelope helpers (docs/cli.md, "Output and exit codes") and the credential store's atomic write, in process.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CredentialStore } from '../src/config-store.ts';
import { EXIT, Failure, UsageError, envelope, responseEnvelope } from '../src/output.ts';
import { tempDir } from './support/cli.ts';

describe('envelope', () => {
  it('is {success, message?} plus extra keys, like the original print.json', () => {
    assert.deepEqual(envelope(true, 'saved', { host: 'h' }), { success: true, message: 'saved', host: 'h' });
    assert.deepEqual(envelope(true, { a: 1 }), { success: true, message: { a: 1 } });
    assert.deepEqual(envelope(true, '{"a": 1}'), { success: true, message: { a: 1 } }, 'a string holding JSON becomes the object');
    assert.deepEqual(envelope(false, '{not json'), { success: false, message: '{not json' });
    assert.deepEqual(envelope(true, '', { api_key: 'k', skipped: undefined }), { success: true, api_key: 'k' });
    assert.deepEqual(envelope(false, 'x', { success: true }), { success: false, message: 'x' }, 'extra keys cannot flip success');
  });

  it('carries an HTTP body and its status_code; an empty body has no message', () => {
    assert.deepEqual(responseEnvelope(true, 201, '{"name":"p"}', { plugin: 1 }), { success: true, plugin: 1, message: { name: 'p' }, status_code: 201 });
    assert.deepEqual(responseEnvelope(false, 502, 'Bad Gateway'), { success: false, message: 'Bad Gateway', status_code: 502 });
    assert.deepEqual(responseEnvelope(true, 204, ''), { success: true, status_code: 204 });
  });

  it('maps error classes to exit codes 1 and 2', () => {
    assert.equal(new Failure('x').exitCode, EXIT.failure);
    assert.equal(new UsageError('x').exitCode, EXIT.usage);
    assert.deepEqual(new Failure('gone', { host: 'h' }).toEnvelope(), { success: false, message: 'gone', host: 'h' });
  });
});

describe('CredentialStore.save', () => {
  it('leaves the old file and no temporary file when the write cannot complete', (t) => {
    const dir = path.join(tempDir(), 'charta');
    const store = new CredentialStore(dir);
    store.save({ default_host: null, hosts: { 'http://localhost': { api_key: 'old' } } });
    const before = fs.readFileSync(store.file, 'utf8');
    t.mock.method(fs, 'renameSync', () => {
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    });
    assert.throws(
      () => store.save({ default_host: null, hosts: { 'http://localhost': { api_key: 'new' } } }),
      (err: unknown) => {
        return err instanceof Failure && /Cannot write .*credentials\.json: ENOSPC/.test(err.message);
      },
    );
    t.mock.restoreAll();
    assert.equal(fs.readFileSync(store.file, 'utf8'), before);
    assert.deepEqual(fs.readdirSync(dir), ['credentials.json']);
  });

  it('writes the file 0600 whatever the umask', () => {
    const dir = path.join(tempDir(), 'charta');
    const previous = process.umask(0o000);
    try {
      new CredentialStore(dir).save({ default_host: null, hosts: {} });
    } finally {
      process.umask(previous);
    }
    assert.equal(fs.statSync(path.join(dir, 'credentials.json')).mode & 0o777, 0o600);
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
  });
});
