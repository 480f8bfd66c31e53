// The credential commands through the real `charta` binary (stdin not a terminal): output
// lines and exit codes, the credentials file's location, modes and atomic writes, usage
// errors as JSON lines without stack traces; plus resolveTarget's precedence and the
// terminal prompt path of add-api-key as units.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CredentialStore, emptyCredentials, type Credentials } from '../src/config-store.ts';
import { run as addApiKey } from '../src/commands/auth/add-api-key.ts';
import { PromptCancelled } from '../src/io.ts';
import { EXIT, Failure, UsageError } from '../src/output.ts';
import { runCli } from '../src/program.ts';
import { NO_HOST_MESSAGE, normalizeHost, resolveTarget } from '../src/target.ts';
import { charta, fakeIO, mode, single, tempDir } from './support/cli.ts';

const KEY = 'sk_test_0123456789abcdef';

function setup() {
  const dir = path.join(tempDir(), 'nested', 'charta');
  const env = { CHARTA_CONFIG_DIR: dir };
  const file = path.join(dir, 'credentials.json');
  const read = () => JSON.parse(fs.readFileSync(file, 'utf8')) as Credentials;
  return { dir, env, file, read, cli: (...args: string[]) => charta(args, env), text: (...args: string[]) => charta(args, env, true) };
}

describe('charta auth (binary)', () => {
  it('add-api-key saves the key in a 0600 file in a 0700 directory, atomically, and never prints it', async () => {
    const t = setup();
    const r = await t.cli('auth', 'add-api-key', '--host', 'https://Charta.Example.com:443/some/path/', '--api-key', KEY);
    const line = single(r, 0);
    assert.deepEqual(line, { success: true, message: 'https://charta.example.com saved', host: 'https://charta.example.com', is_default: false });
    assert.ok(!r.stdout.includes(KEY) && !r.stderr.includes(KEY), 'the key is not printed');
    assert.equal(mode(t.dir), 0o700);
    assert.equal(mode(t.file), 0o600);
    assert.deepEqual(t.read(), { default_host: null, hosts: { 'https://charta.example.com': { api_key: KEY } } });
    // A second write (rename over the first) leaves no temporary file behind.
    single(await t.cli('auth', 'add-api-key', '--host', 'localhost', '--api-key', 'other-key', '--is-default'), 0);
    assert.deepEqual(fs.readdirSync(t.dir), ['credentials.json']);
    assert.equal(mode(t.file), 0o600);
  });

  it('concurrent add-api-key processes each keep their change (the store is locked while it is rewritten)', async () => {
    const t = setup();
    const hosts = Array.from({ length: 8 }, (_, i) => `http://host-${i}.example.com`);
    const results = await Promise.all(hosts.map((host, i) => t.cli('auth', 'add-api-key', '--host', host, '--api-key', `key-${i}`)));
    for (const r of results) single(r, 0);
    assert.deepEqual(Object.keys(t.read().hosts).sort(), [...hosts].sort());
    assert.deepEqual(fs.readdirSync(t.dir), ['credentials.json'], 'no lock file left behind');
  });

  it('a lock left over by a crash is taken over once stale', () => {
    const t = setup();
    const store = new CredentialStore(t.dir);
    store.save(emptyCredentials());
    const lock = `${t.file}.lock`;
    fs.writeFileSync(lock, '');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    store.update((c) => void (c.default_host = 'http://a.example.com'));
    assert.equal(t.read().default_host, 'http://a.example.com');
    assert.ok(!fs.existsSync(lock));
  });

  it('a live lock is waited for, then reported as a failure; nothing is written', () => {
    const t = setup();
    const store = new CredentialStore(t.dir, undefined, 200);
    store.save(emptyCredentials());
    fs.writeFileSync(`${t.file}.lock`, '');
    assert.throws(
      () => store.update((c) => void (c.default_host = 'http://b.example.com')),
      (err: unknown) => err instanceof Failure && /is locked by another charta process/.test(err.message),
    );
    assert.equal(t.read().default_host, null);
  });

  it('--is-default sets the default host; print-config shows host names only', async () => {
    const t = setup();
    const added = single(await t.cli('auth', 'add-api-key', '--host', 'localhost', '--api-key', KEY, '--is-default'), 0);
    assert.deepEqual(added, { success: true, message: 'http://localhost saved', host: 'http://localhost', is_default: true });
    single(await t.cli('auth', 'add-api-key', '--host', 'http://127.0.0.1:8000/', '--api-key', 'second-key'), 0);
    const r = await t.cli('print-config');
    assert.deepEqual(single(r, 0), {
      success: true,
      message: { config_dir: t.dir, credentials_file: t.file, default_host: 'http://localhost', hosts: ['http://127.0.0.1:8000', 'http://localhost'] },
    });
    assert.ok(!r.stdout.includes(KEY) && !r.stdout.includes('second-key'));
  });

  it('print-config works before anything is stored, and creates nothing', async () => {
    const t = setup();
    const line = single(await t.cli('print-config'), 0);
    assert.deepEqual(line.message, { config_dir: t.dir, credentials_file: t.file, default_host: null, hosts: [] });
    assert.equal(fs.existsSync(t.dir), false);
  });

  it('an existing key is replaced only with --force when stdin is not a terminal', async () => {
    const t = setup();
    single(await t.cli('auth', 'add-api-key', '--host', 'localhost', '--api-key', KEY), 0);
    const refused = single(await t.cli('auth', 'add-api-key', '--host', 'http://localhost/', '--api-key', 'new-key'), 2);
    assert.equal(refused.success, false);
    assert.match(String(refused.message), /http:\/\/localhost already has an API key; pass --force/);
    assert.equal(t.read().hosts['http://localhost']!.api_key, KEY);
    single(await t.cli('auth', 'add-api-key', '--host', 'localhost', '--api-key', 'new-key', '--force'), 0);
    assert.equal(t.read().hosts['http://localhost']!.api_key, 'new-key');
  });

  it('missing values are usage errors without a terminal (no prompt, nothing written)', async () => {
    const t = setup();
    const both = single(await t.cli('auth', 'add-api-key'), 2);
    assert.deepEqual(both, { success: false, message: 'Missing --host and --api-key (stdin is not a terminal, so charta cannot prompt)' });
    const key = single(await t.cli('auth', 'add-api-key', '--host', 'localhost'), 2);
    assert.match(String(key.message), /^Missing --api-key/);
    const empty = single(await t.cli('auth', 'add-api-key', '--host', 'localhost', '--api-key', '  '), 2);
    assert.equal(empty.message, 'The API key is empty');
    assert.equal(fs.existsSync(t.dir), false);
  });

  it('get-api-key prints the key of a host, however the host is written; an unknown host is exit 1', async () => {
    const t = setup();
    single(await t.cli('auth', 'add-api-key', '--host', 'https://charta.example.com', '--api-key', KEY), 0);
    const found = single(await t.cli('auth', 'get-api-key', 'HTTPS://charta.example.com/'), 0);
    assert.deepEqual(found, { success: true, host: 'https://charta.example.com', api_key: KEY });
    const missing = single(await t.cli('auth', 'get-api-key', 'http://charta.example.com'), 1);
    assert.equal(missing.success, false);
    assert.equal(missing.message, 'http://charta.example.com not found');
  });

  it('remove-api-key forgets the host and clears the default if it was that host', async () => {
    const t = setup();
    single(await t.cli('auth', 'add-api-key', '--host', 'localhost', '--api-key', KEY, '--is-default'), 0);
    single(await t.cli('auth', 'add-api-key', '--host', 'https://b.example', '--api-key', 'b-key'), 0);
    const removed = single(await t.cli('auth', 'remove-api-key', 'localhost'), 0);
    assert.deepEqual(removed, { success: true, message: 'http://localhost removed', host: 'http://localhost', was_default: true });
    assert.deepEqual(t.read(), { default_host: null, hosts: { 'https://b.example': { api_key: 'b-key' } } });
    const again = single(await t.cli('auth', 'remove-api-key', 'localhost'), 1);
    assert.deepEqual(again, { success: false, message: 'http://localhost not found', host: 'http://localhost' });
    assert.equal(single(await t.cli('auth', 'remove-api-key', 'https://b.example'), 0).was_default, false);
  });

  it('set-default-host needs a stored host (exit 1 otherwise)', async () => {
    const t = setup();
    single(await t.cli('auth', 'add-api-key', '--host', 'https://a.example', '--api-key', KEY), 0);
    const set = single(await t.cli('auth', 'set-default-host', 'https://a.example/'), 0);
    assert.deepEqual(set, { success: true, message: 'https://a.example is the default host', host: 'https://a.example' });
    assert.equal(t.read().default_host, 'https://a.example');
    const unknown = single(await t.cli('auth', 'set-default-host', 'https://b.example'), 1);
    assert.equal(unknown.success, false);
    assert.match(String(unknown.message), /^https:\/\/b\.example has no stored API key; add it first/);
    assert.equal(t.read().default_host, 'https://a.example');
  });

  it('a bad host is a usage error line (exit 2) for every command that takes one', async () => {
    const t = setup();
    for (const host of ['ftp://x', 'http://', 'charta.example.com', 'https://user:pw@charta.example.com']) {
      for (const args of [
        ['auth', 'add-api-key', '--host', host, '--api-key', KEY],
        ['auth', 'get-api-key', host],
        ['auth', 'remove-api-key', host],
        ['auth', 'set-default-host', host],
      ]) {
        const line = single(await t.cli(...args), 2);
        assert.equal(line.success, false);
        assert.match(String(line.message), new RegExp(`^Invalid host '${host.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}'`), args.join(' '));
      }
    }
    assert.equal(fs.existsSync(t.dir), false);
  });

  it('commander errors are JSON lines with exit 2 and no stack trace', async () => {
    const t = setup();
    const cases: [string[], RegExp][] = [
      [['frobnicate'], /^unknown command 'frobnicate'/],
      [['auth', 'add-api-key', '--bogus'], /^unknown option '--bogus'/],
      [['auth', 'get-api-key'], /^missing required argument 'host'/],
      [['auth', 'get-api-key', 'localhost', 'extra'], /too many arguments/],
      [['auth', 'add-api-key', '--host'], /option '--host <url>' argument missing/],
      [['auth'], /^Missing command; run `charta auth --help`/],
      [[], /^Missing command; run `charta --help`/],
    ];
    for (const [args, message] of cases) {
      const r = await t.cli(...args);
      const line = single(r, 2);
      assert.equal(line.success, false, args.join(' '));
      assert.match(String(line.message), message, args.join(' '));
      assert.ok(!r.stderr.includes('    at '), r.stderr);
    }
  });

  it('--version is a JSON line; --help is text with exit 0', async () => {
    const t = setup();
    const version = single(await t.cli('--version'), 0);
    assert.equal(version.success, true);
    assert.match(String(version.version), /^\d+\.\d+\.\d+/);
    const help = await t.text('auth', '--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /add-api-key/);
  });

  it('tightens a looser directory and file before using them, with a warning on stderr', async () => {
    const t = setup();
    fs.mkdirSync(t.dir, { recursive: true });
    fs.chmodSync(t.dir, 0o755);
    fs.writeFileSync(t.file, JSON.stringify({ default_host: 'http://localhost', hosts: { 'http://localhost': { api_key: KEY } } }));
    fs.chmodSync(t.file, 0o644);
    const r = await t.cli('auth', 'get-api-key', 'localhost');
    assert.equal(single(r, 0).api_key, KEY);
    assert.equal(mode(t.dir), 0o700);
    assert.equal(mode(t.file), 0o600);
    assert.match(r.stderr, /warning: tightened the permissions of .*charta from 0755 to 0700/);
    assert.match(r.stderr, /warning: tightened the permissions of .*credentials\.json from 0644 to 0600/);
    // Already tight: no warning the second time.
    const again = await t.cli('auth', 'get-api-key', 'localhost');
    assert.equal(again.stderr, '');
  });

  it('a write into a pre-created loose directory leaves it 0700', async () => {
    const t = setup();
    fs.mkdirSync(t.dir, { recursive: true, mode: 0o777 });
    fs.chmodSync(t.dir, 0o777);
    single(await t.cli('auth', 'add-api-key', '--host', 'localhost', '--api-key', KEY), 0);
    assert.equal(mode(t.dir), 0o700);
    assert.equal(mode(t.file), 0o600);
  });

  it('a corrupt credentials file is a failure line (exit 1) naming the file', async () => {
    const t = setup();
    fs.mkdirSync(t.dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(t.file, '{"hosts": ', { mode: 0o600 });
    const line = single(await t.cli('auth', 'get-api-key', 'localhost'), 1);
    assert.equal(line.path, t.file);
    assert.match(String(line.message), /is not a valid credentials file/);
    fs.writeFileSync(t.file, JSON.stringify({ hosts: { 'http://localhost': { api_key: 42 } } }));
    assert.match(String(single(await t.cli('print-config'), 1).message), /"hosts\.http:\/\/localhost\.api_key" must be a string/);
  });

  it('finds the directory through CHARTA_CONFIG_DIR, then XDG_CONFIG_HOME, then ~/.config', async () => {
    const home = tempDir();
    const xdg = tempDir();
    const viaXdg = single(await charta(['print-config'], { HOME: home, XDG_CONFIG_HOME: xdg }), 0);
    assert.equal((viaXdg.message as { config_dir: string }).config_dir, path.join(xdg, 'charta'));
    const viaHome = single(await charta(['print-config'], { HOME: home, XDG_CONFIG_HOME: 'relative/ignored' }), 0);
    assert.equal((viaHome.message as { config_dir: string }).config_dir, path.join(home, '.config', 'charta'));
    const explicit = path.join(home, 'explicit');
    const viaEnv = single(await charta(['print-config'], { HOME: home, XDG_CONFIG_HOME: xdg, CHARTA_CONFIG_DIR: explicit }), 0);
    assert.equal((viaEnv.message as { config_dir: string }).config_dir, explicit);
  });
});

describe('normalizeHost', () => {
  it('keeps scheme://host[:port] as the original tool does', () => {
    assert.equal(normalizeHost('localhost'), 'http://localhost');
    assert.equal(normalizeHost('http://localhost:8000/'), 'http://localhost:8000');
    assert.equal(normalizeHost('https://EXAMPLE.com/a/b?c=d#e'), 'https://example.com');
    assert.equal(normalizeHost('https://example.com:443'), 'https://example.com');
    assert.equal(normalizeHost(' http://[::1]:9000 '), 'http://[::1]:9000');
  });

  it('refuses other schemes, a missing host and bare names', () => {
    for (const bad of ['ftp://x', 'http://', 'https://', 'example.com', 'localhost:8000', '', 'file:///etc/passwd', 'http://u:p@x']) {
      assert.throws(() => normalizeHost(bad), UsageError, bad);
    }
  });
});

describe('resolveTarget', () => {
  const stored: Credentials = {
    default_host: 'https://stored.example',
    hosts: { 'https://stored.example': { api_key: 'stored-key' }, 'https://flag.example': { api_key: 'flag-host-key' } },
  };
  const store = (credentials: Credentials = stored) => ({ load: () => structuredClone(credentials) });
  const unreadable = { load: (): Credentials => assert.fail('the store is not read when flags and environment suffice') };

  it('uses the stored default host and its key', () => {
    assert.deepEqual(resolveTarget({}, {}, store()), { host: 'https://stored.example', apiKey: 'stored-key' });
  });

  it('CHARTA_HOST / CHARTA_API_KEY override the stored values', () => {
    assert.deepEqual(resolveTarget({}, { CHARTA_HOST: 'https://flag.example/' }, store()), { host: 'https://flag.example', apiKey: 'flag-host-key' });
    assert.deepEqual(resolveTarget({}, { CHARTA_API_KEY: 'env-key' }, store()), { host: 'https://stored.example', apiKey: 'env-key' });
    assert.deepEqual(resolveTarget({}, { CHARTA_HOST: 'localhost', CHARTA_API_KEY: 'env-key' }, unreadable), { host: 'http://localhost', apiKey: 'env-key' });
  });

  it('--host / --api-key override the environment and the store', () => {
    const env = { CHARTA_HOST: 'https://env.example', CHARTA_API_KEY: 'env-key' };
    assert.deepEqual(resolveTarget({ host: 'https://flag.example', apiKey: 'flag-key' }, env, unreadable), {
      host: 'https://flag.example',
      apiKey: 'flag-key',
    });
    assert.deepEqual(resolveTarget({ host: 'https://flag.example' }, env, unreadable), { host: 'https://flag.example', apiKey: 'env-key' });
    assert.deepEqual(resolveTarget({ host: 'https://flag.example' }, {}, store()), { host: 'https://flag.example', apiKey: 'flag-host-key' });
    assert.deepEqual(resolveTarget({ apiKey: 'flag-key' }, env, unreadable), { host: 'https://env.example', apiKey: 'flag-key' });
  });

  it('empty values count as unset', () => {
    assert.deepEqual(resolveTarget({ host: '', apiKey: '' }, { CHARTA_HOST: '', CHARTA_API_KEY: ' ' }, store()), {
      host: 'https://stored.example',
      apiKey: 'stored-key',
    });
  });

  it('no host anywhere, no key for the host, or an invalid host are usage errors', () => {
    assert.throws(
      () => resolveTarget({}, {}, store(emptyCredentials())),
      (err: unknown) => err instanceof UsageError && err.message === NO_HOST_MESSAGE,
    );
    assert.throws(
      () => resolveTarget({ host: 'https://unknown.example' }, {}, store()),
      (err: unknown) => err instanceof UsageError && /^No API key for https:\/\/unknown\.example/.test(err.message),
    );
    assert.throws(
      () => resolveTarget({}, { CHARTA_HOST: 'ftp://x' }, store()),
      (err: unknown) => err instanceof UsageError && /CHARTA_HOST/.test(err.message),
    );
    assert.throws(() => resolveTarget({ host: 'http://' }, {}, store()), UsageError);
  });
});

describe('auth add-api-key run() on a terminal', () => {
  const env = () => ({ CHARTA_CONFIG_DIR: path.join(tempDir(), 'charta') });
  const load = (e: { CHARTA_CONFIG_DIR: string }) => new CredentialStore(e.CHARTA_CONFIG_DIR).load();

  it('prompts for the host, the key and whether it is the default', async () => {
    const e = env();
    const io = fakeIO(e, { input: ['https://charta.example.com/'], password: [KEY], confirm: [true] });
    assert.equal(await addApiKey(io, { force: false }), EXIT.ok);
    assert.deepEqual(io.asked, [
      'input: Host (for example https://charta.example.com)',
      'password: API key',
      'confirm: Use https://charta.example.com as the default host?',
    ]);
    assert.deepEqual(io.out(), [{ success: true, message: 'https://charta.example.com saved', host: 'https://charta.example.com', is_default: true }]);
    assert.deepEqual(load(e), { default_host: 'https://charta.example.com', hosts: { 'https://charta.example.com': { api_key: KEY } } });
  });

  it('asks nothing that was given as a flag', async () => {
    const e = env();
    const io = fakeIO(e);
    assert.equal(await addApiKey(io, { host: 'http://localhost', apiKey: KEY, isDefault: false, force: false }), EXIT.ok);
    assert.deepEqual(io.asked, []);
    assert.equal(load(e).default_host, null);
  });

  it('asks before replacing an existing key, and keeps it on "no"', async () => {
    const e = env();
    await addApiKey(fakeIO(e), { host: 'http://localhost', apiKey: KEY, isDefault: true, force: false });
    const declined = fakeIO(e, { confirm: [false] });
    await assert.rejects(addApiKey(declined, { host: 'http://localhost', apiKey: 'new-key', isDefault: true, force: false }), (err: unknown) => {
      return err instanceof Failure && err.message === 'http://localhost unchanged';
    });
    assert.deepEqual(declined.asked, ['confirm: http://localhost already has an API key. Replace it?']);
    assert.equal(load(e).hosts['http://localhost']!.api_key, KEY);

    const accepted = fakeIO(e, { confirm: [true], password: ['new-key'] });
    assert.equal(await addApiKey(accepted, { host: 'http://localhost', force: false }), EXIT.ok);
    // The host is already the default, so that is not asked again.
    assert.deepEqual(accepted.asked, ['confirm: http://localhost already has an API key. Replace it?', 'password: API key']);
    assert.equal(load(e).hosts['http://localhost']!.api_key, 'new-key');
    assert.equal(accepted.out()[0]!.is_default, true);
  });

  it('never prompts when stdin is not a terminal', async () => {
    const io = fakeIO(env(), {}, false);
    await assert.rejects(addApiKey(io, { host: 'http://localhost', force: false }), UsageError);
    assert.deepEqual(io.asked, []);
  });

  it('a cancelled prompt (Ctrl-C) is an "Aborted" failure line through the program', async () => {
    const io = fakeIO(env());
    io.prompt.input = async () => {
      throw new PromptCancelled('Aborted');
    };
    assert.equal(await runCli(['node', 'charta', 'auth', 'add-api-key'], io), EXIT.failure);
    assert.deepEqual(io.out(), [{ success: false, message: 'Aborted' }]);
  });
});
