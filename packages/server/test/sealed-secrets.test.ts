// Plugin secrets sealed at rest (docs/operations.md, "Sealed secrets") on both engines, with real
// `charta-server` processes: a secret set through the API is nowhere in the database as plaintext
// (the SQLite file and its log read as bytes; every text, JSON and bytea column of PostgreSQL, and
// pg_dump) while the plugin reads it in its handler; a value changed in the database, or moved to
// another row, fails the plugin's load with the reason instead of giving it something else; a
// start with a wrong or missing key refuses (exit 2) naming the key ids, never a key or a value;
// the first start makes the key file (0600) and says where; rotate-secret-key seals every value
// again (one transaction: a value it cannot open changes nothing; a crash before the key file is
// replaced loses nothing); and plaintext of an earlier version is sealed by the next start.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql, type Kysely } from 'kysely';
import { openStorage, type Storage } from '../src/storage/db.ts';
import type { Database } from '../src/storage/schema.ts';
import { Keyring, SecretKey } from '../src/lib/sealing.ts';
import { createKeyFile, readKeyFile } from '../src/lib/secret-key-files.ts';
import { resealSecrets } from '../src/storage/plugin-secrets-repository.ts';
import { createDatabase, ENGINES, request, TEST_API_KEY, type TestDatabase } from './support/harness.ts';
import { runBinary, startServerProcess, stopAll, tokenFor, type ServerProcess } from './support/processes.ts';
import { installPlugin, type TestHandler } from './support/plugins.ts';
import { until } from './support/until.ts';

const run = promisify(execFile);
const PLUGIN = 'vault';
const P = '/core/api/v1/plugins';
// Values that must never be in the database as they are, nor in anything a process prints.
const API_TOKEN = `api-token-${crypto.randomBytes(9).toString('hex')}-plain`;
const OTHER_TOKEN = `other-token-${crypto.randomBytes(9).toString('hex')}-plain`;
const reversed = (text: string) => [...text].reverse().join('');

/**
 * Answers what the plugin's handler reads in this.secrets, each value reversed (so that the
 * plaintext never crosses the wire either, and a wrong value cannot pass for the right one).
 */
const READER: TestHandler = {
  className: 'SecretReader',
  events: ['SIMPLE_API_REQUEST'],
  statics: { ROUTES: [{ method: 'GET', path: '/read', auth: 'api_key' }] },
  compute: `    const flip = (v) => (v === undefined ? null : v.split('').reverse().join(''));
    return [{ type: 'HTTP_RESPONSE', payload: { status: 200, headers: {}, body: { api: flip(this.secrets.API_TOKEN), other: flip(this.secrets.OTHER_TOKEN) } } }];`,
};

describe('sealing (lib/sealing.ts)', () => {
  const key = SecretKey.generate();
  it('seals with a fresh nonce each time, opens only with the same key and the same identity', () => {
    const a = key.seal(API_TOKEN, 'plugin_secrets\0vault\0API_TOKEN');
    const b = key.seal(API_TOKEN, 'plugin_secrets\0vault\0API_TOKEN');
    assert.notEqual(a, b, 'a fresh nonce per value');
    assert.match(a, /^v1:[A-Za-z0-9+/]+=*$/);
    assert.ok(!a.includes(API_TOKEN));
    assert.equal(key.open(a, 'plugin_secrets\0vault\0API_TOKEN'), API_TOKEN);
    assert.throws(() => key.open(a, 'plugin_secrets\0vault\0OTHER_TOKEN'), /integrity check/, 'another row');
    assert.throws(() => SecretKey.generate().open(a, 'plugin_secrets\0vault\0API_TOKEN'), /integrity check/, 'another key');
    const raw = Buffer.from(a.slice(3), 'base64');
    raw[14]! ^= 1;
    assert.throws(() => key.open(`v1:${raw.toString('base64')}`, 'plugin_secrets\0vault\0API_TOKEN'), /integrity check/, 'a flipped bit');
    const ring = new Keyring(key);
    assert.throws(() => ring.open('0123456789abcdef', a, 'x'), /key id 0123456789abcdef, which this process was not given/);
  });

  it('never shows a key: JSON and inspection print its id; a bad key is refused without quoting it', async () => {
    const text = key.text().trim();
    const { inspect } = await import('node:util');
    for (const shown of [
      JSON.stringify({ key }),
      inspect({ key }, { showHidden: true, depth: 5 }),
      JSON.stringify(new Keyring(key)),
      inspect(new Keyring(key)),
    ]) {
      assert.ok(!shown.includes(text) && !shown.includes(Buffer.from(text, 'base64').toString('hex')), shown);
      assert.ok(shown.includes(key.id), shown);
    }
    assert.equal(SecretKey.parse(`  ${text}\n`, 'x').id, key.id);
    assert.equal(SecretKey.parse(Buffer.from(text, 'base64').toString('hex'), 'x').id, key.id);
    for (const bad of ['', 'short', `${text}AAAA`, 'z'.repeat(64)]) {
      assert.throws(
        () => SecretKey.parse(bad, 'CHARTA_SECRET_KEY'),
        (err: Error) => /^CHARTA_SECRET_KEY is not a secret key/.test(err.message) && (bad === '' || !err.message.includes(bad)),
      );
    }
  });
});

for (const engine of ENGINES) {
  describe(`sealed secrets at rest (${engine})`, () => {
    let db: TestDatabase;
    let storage: Storage;
    let server: ServerProcess | undefined;
    /** Everything every process of the test printed. */
    const printed: string[] = [];
    const sqlite = engine === 'sqlite';
    /** The key the instance runs with: SQLite's made by its first start, PostgreSQL's made by the harness. */
    let keyFile: string;

    before(async () => {
      db = await createDatabase(engine);
      keyFile = sqlite ? path.join(db.dataDir, 'secret.key') : db.env.CHARTA_SECRET_KEY_FILE!;
    });
    after(async () => {
      await stopAll();
      await storage?.close();
      await db?.drop();
    });

    /** A server on the database (its usual key unless `env` says otherwise), until it listens. */
    const start = async (env: NodeJS.ProcessEnv = {}) => {
      server = await startServerProcess(db, env);
      return server;
    };
    const stop = async () => {
      if (server === undefined) return;
      // An answer first: the welcome text is printed a moment before the process listens for SIGTERM.
      assert.equal((await request(server.url, 'GET', '/healthz', {}, '')).status, 200);
      server.child.kill('SIGTERM');
      assert.deepEqual(await server.exited, { code: 0, signal: null });
      printed.push(server.output());
      server = undefined;
    };
    /** `charta-server …` to its exit, with the database and the data directory, and `env` on top. */
    const binary = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
      const r = await runBinary(args, { CHARTA_DATABASE_URL: db.url, CHARTA_DATA_DIR: db.dataDir, CHARTA_LOG_LEVEL: 'error', ...env });
      printed.push(r.stdout, r.stderr);
      return r;
    };
    const api = (method: string, urlPath: string, body?: unknown) => request(server!.url, method, urlPath, { authorization: TEST_API_KEY, body }, '');
    const inspect = (): Kysely<Database> => (storage ??= openStorage(db.url)).db;
    const rows = () => inspect().selectFrom('plugin_secrets').select(['name', 'value', 'key_id']).where('plugin_name', '=', PLUGIN).orderBy('name').execute();
    const bumpPlugin = () =>
      inspect()
        .updateTable('plugins')
        .set((eb) => ({ updated_at: eb('updated_at', '+', 1) }))
        .where('name', '=', PLUGIN)
        .execute();
    /** What the plugin's handler reads, reversed back; or its route's failure. */
    type Read = { ok: true; api: string | null; other: string | null } | { ok: false; status: number; text: string };
    const read = async (): Promise<Read> => {
      const r = await request(server!.url, 'GET', `/plugin-io/api/${PLUGIN}/read`, { authorization: TEST_API_KEY }, '');
      if (r.status !== 200) return { ok: false, status: r.status, text: r.text };
      const back = (v: string | null) => (v === null ? null : reversed(v));
      return { ok: true, api: back(r.json.api), other: back(r.json.other) };
    };
    const untilReads = (expected: { api: string | null; other: string | null }) =>
      until(`the plugin to read its secrets`, async () => {
        const got = await read();
        return got.ok && got.api === expected.api && got.other === expected.other;
      });
    const runtime = async () => (await api('GET', `${P}/${PLUGIN}/`)).json.runtime as { state: string; detail: string | null };

    /** Where the plaintext could be found in the database: the SQLite file and its log as bytes, or every text-like column and pg_dump's output. */
    async function databaseHolds(text: string): Promise<string[]> {
      const found: string[] = [];
      if (sqlite) {
        const file = new URL(db.url.replace(/^sqlite:/, 'file:')).pathname;
        for (const f of [file, `${file}-wal`, `${file}-journal`]) {
          if (fs.existsSync(f) && fs.readFileSync(f).includes(Buffer.from(text, 'utf8'))) found.push(path.basename(f));
        }
        return found;
      }
      const columns = await sql<{ table_name: string; column_name: string; data_type: string }>`
        SELECT table_name, column_name, data_type FROM information_schema.columns
        WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea')`.execute(inspect());
      assert.ok(columns.rows.length > 50, `${columns.rows.length} columns scanned`);
      for (const c of columns.rows) {
        const column = sql.ref(`${c.table_name}.${c.column_name}`);
        const where = c.data_type === 'bytea' ? sql`position(convert_to(${text}, 'UTF8') in ${column}) > 0` : sql`strpos(${column}::text, ${text}) > 0`;
        const n = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(c.table_name)} WHERE ${where}`.execute(inspect());
        if (n.rows[0]!.n > 0) found.push(`${c.table_name}.${c.column_name}`);
      }
      const dump = await run('pg_dump', ['--data-only', '--no-owner', db.url], { maxBuffer: 1 << 30 }).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined; // no pg_dump here: the columns were read
        throw err;
      });
      if (dump?.stdout.includes(text)) found.push('pg_dump');
      return found;
    }

    it('the first start makes the key (SQLite: <data dir>/secret.key, 0600) and says where, never what; PostgreSQL refuses to start without one', async () => {
      if (sqlite) {
        assert.ok(!fs.existsSync(keyFile));
        const s = await start();
        const stat = fs.statSync(keyFile);
        assert.equal(stat.mode & 0o777, 0o600);
        const key = readKeyFile(keyFile, 'the key file');
        assert.match(s.output(), new RegExp(`Secret key: made ${escape(keyFile)} \\(mode 0600, key id ${key.id}\\)`));
        assert.ok(!s.output().includes(fs.readFileSync(keyFile, 'utf8').trim()), 'the key is not printed');
        assert.deepEqual(
          fs.readdirSync(db.dataDir).filter((f) => f.includes('tmp')),
          [],
          'no temporary file left',
        );
      } else {
        const refused = await binary(['start']);
        assert.equal(refused.code, 2, refused.stderr);
        assert.equal(refused.stdout, '');
        assert.match(
          refused.stderr.trim(),
          /^charta-server: no secret key: on PostgreSQL set CHARTA_SECRET_KEY or CHARTA_SECRET_KEY_FILE, the same for every process/,
        );
        assert.equal(refused.stderr.trim().split('\n').length, 1);
        const s = await start();
        assert.match(s.output(), new RegExp(`Secret key: CHARTA_SECRET_KEY_FILE \\(${escape(keyFile)}\\) \\(key id ${readKeyFile(keyFile, 'k').id}\\)`));
      }
    });

    it('a secret set through the API is sealed: no plaintext in the database, and the plugin reads it in its handler', async () => {
      await installPlugin(server!.url, PLUGIN, [READER], { secrets: ['API_TOKEN', 'OTHER_TOKEN'] });
      const set = await api('PATCH', `${P}/${PLUGIN}/secrets/`, { API_TOKEN, OTHER_TOKEN });
      assert.equal(set.status, 200, set.text);
      await untilReads({ api: API_TOKEN, other: OTHER_TOKEN });
      // A control: something written just now that is NOT sealed is found by the same search.
      const marker = `Marker${crypto.randomBytes(6).toString('hex')}`;
      const patient = await request(
        server!.url,
        'POST',
        '/core/api/v1/patients/',
        { body: { firstName: 'Seal', lastName: marker } },
        await tokenFor(server!.url),
      );
      assert.equal(patient.status, 201, patient.text);
      assert.notDeepEqual(await databaseHolds(marker), [], 'the search finds what is stored in plaintext');

      const key = readKeyFile(keyFile, 'k');
      const stored = await rows();
      assert.deepEqual(
        stored.map((r) => [r.name, r.key_id]),
        [
          ['API_TOKEN', key.id],
          ['OTHER_TOKEN', key.id],
        ],
      );
      for (const r of stored) assert.match(r.value, /^v1:/);
      assert.deepEqual(await databaseHolds(API_TOKEN), [], 'API_TOKEN in plaintext');
      assert.deepEqual(await databaseHolds(OTHER_TOKEN), [], 'OTHER_TOKEN in plaintext');
      // Nor does the API answer a value.
      for (const path of [`${P}/${PLUGIN}/`, `${P}/${PLUGIN}/secrets/`, `${P}/`]) {
        const r = await api('GET', path);
        assert.equal(r.status, 200);
        assert.ok(!r.text.includes(API_TOKEN) && !r.text.includes(OTHER_TOKEN), path);
      }
    });

    it('a sealed value changed in the database, or moved to another row, fails the plugin with the reason: never another value', async () => {
      const [apiRow, otherRow] = await rows();
      // Moved: API_TOKEN's sealed value (a valid one, under the right key) in OTHER_TOKEN's row.
      await inspect().updateTable('plugin_secrets').set({ value: apiRow!.value }).where('plugin_name', '=', PLUGIN).where('name', '=', 'OTHER_TOKEN').execute();
      await bumpPlugin();
      const moved = await until('the plugin failing', async () => ((await runtime()).state === 'failing' ? runtime() : undefined));
      assert.match(moved.detail!, /the secret OTHER_TOKEN of plugin vault cannot be opened: it fails its integrity check.*set it again/);
      // Its route is not served while it is failing.
      const answer = await read();
      assert.ok(!answer.ok, JSON.stringify(answer));
      assert.ok(!answer.text.includes(reversed(API_TOKEN)));

      // Set again through the API: running, with the right values.
      assert.equal((await api('PATCH', `${P}/${PLUGIN}/secrets/`, { OTHER_TOKEN })).status, 200);
      await untilReads({ api: API_TOKEN, other: OTHER_TOKEN });
      assert.notEqual((await rows())[1]!.value, otherRow!.value, 'a fresh nonce');

      // One bit of the ciphertext flipped.
      const raw = Buffer.from(apiRow!.value.slice(3), 'base64');
      raw[20]! ^= 0x01;
      await inspect()
        .updateTable('plugin_secrets')
        .set({ value: `v1:${raw.toString('base64')}` })
        .where('plugin_name', '=', PLUGIN)
        .where('name', '=', 'API_TOKEN')
        .execute();
      await bumpPlugin();
      const flipped = await until('the plugin failing', async () => ((await runtime()).state === 'failing' ? runtime() : undefined));
      assert.match(flipped.detail!, /the secret API_TOKEN of plugin vault cannot be opened: it fails its integrity check/);
      assert.equal((await api('PATCH', `${P}/${PLUGIN}/secrets/`, { API_TOKEN })).status, 200);
      await untilReads({ api: API_TOKEN, other: OTHER_TOKEN });
      await stop();
    });

    it('a start with the wrong key refuses (exit 2), naming the key ids, never a key or a value', async () => {
      const right = readKeyFile(keyFile, 'k');
      const wrong = SecretKey.generate();
      const wrongFile = path.join(db.dataDir, 'wrong.key');
      createKeyFile(wrongFile, wrong);
      for (const [env, named] of [
        [{ CHARTA_SECRET_KEY: wrong.text().trim() }, 'CHARTA_SECRET_KEY'],
        [{ CHARTA_SECRET_KEY_FILE: wrongFile }, `CHARTA_SECRET_KEY_FILE \\(${escape(wrongFile)}\\)`],
      ] as const) {
        const r = await binary(['start'], env);
        assert.equal(r.code, 2, r.stderr);
        assert.equal(r.stdout, '', 'nothing served');
        assert.match(
          r.stderr.trim(),
          new RegExp(
            `^charta-server: ${named} does not match the key that sealed 2 plugin secrets \\(key id ${right.id}\\); set the key they were sealed with \\(the key given has key id ${wrong.id}\\)`,
          ),
        );
        for (const secret of [API_TOKEN, OTHER_TOKEN, wrong.text().trim(), right.text().trim()]) assert.ok(!(r.stdout + r.stderr).includes(secret));
      }
      const bad = await binary(['start'], { CHARTA_SECRET_KEY: 'not-a-key' });
      assert.equal(bad.code, 2);
      assert.equal(
        bad.stderr.trim(),
        'charta-server: CHARTA_SECRET_KEY is not a secret key: it must be 32 random bytes written as base64 (44 characters) or hex (64 digits), as `openssl rand -base64 32` prints',
      );
    });

    it('a start with no key while secrets are sealed refuses (exit 2); so does a key file others may read', async () => {
      const right = readKeyFile(keyFile, 'k');
      if (sqlite) {
        const aside = `${keyFile}.aside`;
        fs.renameSync(keyFile, aside);
        try {
          const r = await binary(['start']);
          assert.equal(r.code, 2, r.stderr);
          assert.equal(
            r.stderr.trim(),
            `charta-server: no secret key: 2 plugin secrets are sealed (key id ${right.id}), but neither CHARTA_SECRET_KEY nor CHARTA_SECRET_KEY_FILE is set and ` +
              `${keyFile} does not exist; set the key they were sealed with (a new key would not open them). See docs/operations.md, "Sealed secrets".`,
          );
          assert.ok(!fs.existsSync(keyFile), 'no new key is made while values are sealed');
        } finally {
          fs.renameSync(aside, keyFile);
        }
      } else {
        const gone = await binary(['start'], { CHARTA_SECRET_KEY_FILE: path.join(db.dataDir, 'no-such.key') });
        assert.equal(gone.code, 2, gone.stderr);
        assert.match(gone.stderr, /CHARTA_SECRET_KEY_FILE \(.*no-such\.key\) does not exist/);
        const none = await binary(['start']);
        assert.equal(none.code, 2, none.stderr);
        assert.match(none.stderr, /no secret key: on PostgreSQL set CHARTA_SECRET_KEY or CHARTA_SECRET_KEY_FILE/);
      }
      fs.chmodSync(keyFile, 0o644);
      try {
        const r = await binary(['start'], db.env);
        assert.equal(r.code, 2, r.stderr);
        assert.match(r.stderr, /may be read or written by other users \(mode 0644\); make it private: chmod 600/);
      } finally {
        fs.chmodSync(keyFile, 0o600);
      }
    });

    it('rotate-secret-key meets a value it cannot open: it names it, exits non-zero and changes nothing', async () => {
      const before = await rows();
      const raw = Buffer.from(before[1]!.value.slice(3), 'base64');
      raw[raw.length - 1]! ^= 0x80;
      const setOther = (value: string) =>
        inspect().updateTable('plugin_secrets').set({ value }).where('plugin_name', '=', PLUGIN).where('name', '=', 'OTHER_TOKEN').execute();
      await setOther(`v1:${raw.toString('base64')}`);
      const tampered = await rows();
      const newKey = path.join(db.dataDir, 'refused-rotation.key');
      const r = await binary(['rotate-secret-key', ...(sqlite ? [] : ['--new-key-file', newKey])], db.env);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /the secret OTHER_TOKEN of plugin vault cannot be opened: it fails its integrity check/);
      assert.deepEqual(await rows(), tampered, 'every row as it was, API_TOKEN (sealed first) included');
      if (sqlite) assert.equal(readKeyFile(keyFile, 'k').id, before[0]!.key_id, 'the key file is the old one');
      assert.ok(!fs.existsSync(sqlite ? `${keyFile}.next` : newKey), 'the new key it made, which sealed nothing, is gone');
      await setOther(before[1]!.value);
    });

    it('rotate-secret-key seals every value again under a new key; the plugin reads them; the old key no longer opens the database', async () => {
      const old = readKeyFile(keyFile, 'k');
      let current: SecretKey;
      let env: NodeJS.ProcessEnv = db.env;
      if (sqlite) {
        const r = await binary(['rotate-secret-key']);
        assert.equal(r.code, 0, r.stderr);
        current = readKeyFile(keyFile, 'k');
        assert.notEqual(current.id, old.id);
        assert.ok(!fs.existsSync(`${keyFile}.next`));
        assert.equal(fs.statSync(keyFile).mode & 0o777, 0o600);
        assert.match(r.stdout, new RegExp(`Made the new key ${escape(keyFile)}\\.next \\(mode 0600, key id ${current.id}\\)`));
        assert.match(r.stdout, new RegExp(`Sealed 2 plugin secrets again with the new key \\(key id ${current.id}; before: key id ${old.id}\\)`));
        assert.match(r.stdout, new RegExp(`${escape(keyFile)} now holds the new key`));
        assert.match(r.stdout, new RegExp(`The old key \\(key id ${old.id}\\) is no longer needed by this database`));
      } else {
        const without = await binary(['rotate-secret-key'], db.env);
        assert.equal(without.code, 2, without.stderr);
        assert.match(without.stderr, /give the new key's file with --new-key-file PATH/);
        const newFile = path.join(db.dataDir, 'rotated.key');
        const r = await binary(['rotate-secret-key', '--new-key-file', newFile], db.env);
        assert.equal(r.code, 0, r.stderr);
        current = readKeyFile(newFile, 'k');
        assert.equal(fs.statSync(newFile).mode & 0o777, 0o600);
        assert.match(r.stdout, new RegExp(`Sealed 2 plugin secrets again with the new key \\(key id ${current.id}; before: key id ${old.id}\\)`));
        assert.match(r.stdout, new RegExp(`Now set CHARTA_SECRET_KEY_FILE=${escape(newFile)}`));
        env = { CHARTA_SECRET_KEY_FILE: newFile };
        keyFile = newFile;
      }
      for (const secret of [API_TOKEN, OTHER_TOKEN, old.text().trim(), current.text().trim()]) assert.ok(!printed.join('\n').includes(secret));
      assert.deepEqual(
        (await rows()).map((r) => r.key_id),
        [current.id, current.id],
      );
      const refused = await binary(['start'], { CHARTA_SECRET_KEY_FILE: '', CHARTA_SECRET_KEY: old.text().trim() });
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, new RegExp(`does not match the key that sealed 2 plugin secrets \\(key id ${current.id}\\)`));
      await start(env);
      await untilReads({ api: API_TOKEN, other: OTHER_TOKEN });
      await stop();
    });

    it('a rotation cut off after its commit (the values under the new key, the key file not yet replaced) loses nothing, and runs again to its end', async () => {
      const old = readKeyFile(keyFile, 'k');
      const next = SecretKey.generate();
      if (sqlite) createKeyFile(`${keyFile}.next`, next);
      // What the rotation commits before it replaces the key file.
      await inspect()
        .transaction()
        .execute((trx) => resealSecrets(trx, new Keyring(old).sealingWith(next)));
      assert.deepEqual(
        (await rows()).map((r) => r.key_id),
        [next.id, next.id],
      );
      if (sqlite) {
        const s = await start();
        assert.match(
          s.output(),
          new RegExp(`A rotation of the secret key did not finish \\(${escape(keyFile)}\\.next exists\\): run charta-server rotate-secret-key again`),
        );
        await untilReads({ api: API_TOKEN, other: OTHER_TOKEN });
        await stop();
        const r = await binary(['rotate-secret-key']);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /Sealed 0 plugin secrets again with the new key/);
        assert.equal(readKeyFile(keyFile, 'k').id, next.id, 'the key file holds the new key');
        assert.ok(!fs.existsSync(`${keyFile}.next`));
      } else {
        // The operator had not yet set the new key: the start says which key the values need.
        const r = await binary(['start'], { CHARTA_SECRET_KEY_FILE: keyFile });
        assert.equal(r.code, 2, r.stderr);
        assert.match(r.stderr, new RegExp(`key id ${next.id}`));
        keyFile = path.join(db.dataDir, 'next.key');
        createKeyFile(keyFile, next);
      }
      await start({ CHARTA_SECRET_KEY_FILE: sqlite ? '' : keyFile });
      await untilReads({ api: API_TOKEN, other: OTHER_TOKEN });
      await stop();
    });

    it('plaintext an earlier version stored is sealed by the next start (once), and none of it is left in the database', async () => {
      // The database as a version before migration 017 left it: the values in plaintext, no key_id.
      const key = readKeyFile(keyFile, 'k');
      await inspect().updateTable('plugin_secrets').set({ value: API_TOKEN }).where('name', '=', 'API_TOKEN').execute();
      await inspect().updateTable('plugin_secrets').set({ value: OTHER_TOKEN }).where('name', '=', 'OTHER_TOKEN').execute();
      await sql`ALTER TABLE plugin_secrets DROP COLUMN key_id`.execute(inspect());
      await sql`DELETE FROM kysely_migration WHERE name = '017-sealed-secrets'`.execute(inspect());
      assert.notDeepEqual(await databaseHolds(API_TOKEN), [], 'the plaintext is there before');

      const env = { CHARTA_SECRET_KEY_FILE: sqlite ? '' : keyFile };
      const s = await start(env);
      const expected = `Sealed 2 plugin secrets that an earlier version stored in plaintext (key id ${key.id})`;
      assert.ok(s.output().includes(expected), s.output());
      assert.deepEqual(
        (await rows()).map((r) => [r.name, r.key_id]),
        [
          ['API_TOKEN', key.id],
          ['OTHER_TOKEN', key.id],
        ],
      );
      await untilReads({ api: API_TOKEN, other: OTHER_TOKEN });
      if (sqlite) assert.ok(s.output().includes('the SQLite file was rewritten so that no copy of the plaintext is left in it'));
      assert.deepEqual(await databaseHolds(API_TOKEN), [], 'API_TOKEN in plaintext after the start');
      assert.deepEqual(await databaseHolds(OTHER_TOKEN), [], 'OTHER_TOKEN in plaintext after the start');
      await stop();
      const again = await start(env);
      assert.ok(!again.output().includes('Sealed '), 'nothing left to seal');
      await stop();
      for (const secret of [API_TOKEN, OTHER_TOKEN, key.text().trim()]) assert.ok(!printed.join('\n').includes(secret), 'printed by a process');
    });
  });
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
