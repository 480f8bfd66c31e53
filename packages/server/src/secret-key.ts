// The instance's secret key (docs/operations.md, "Sealed secrets"; docs/configuration.md): where it
// comes from, its check against the database on every start, the sealing of plaintext an earlier
// version stored, and `charta-server rotate-secret-key`.
//
// * The key is CHARTA_SECRET_KEY, or the file CHARTA_SECRET_KEY_FILE names, or on SQLite
//   `<data dir>/secret.key`, which the first start makes (mode 0600) and says so. On PostgreSQL one
//   of the two settings is required: every process on the database needs the same key, and a key
//   made in one host's data directory would not be on the others.
// * A start whose key did not seal every sealed value refuses, naming the key ids and how many
//   values each sealed, never a key or a value: a wrong key is never taken for a new one.
// * A rotation seals every value again under the new key in one transaction: a crash before its
//   commit leaves every value under the old key, after it every value under the new one, and the
//   files hold both keys until the end (`<data dir>/secret.key.next`, read by every start while it
//   exists), so a crash anywhere loses nothing.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';
import { engineOf, type Storage } from './storage/db.ts';
import { Keyring, SecretKey, SecretKeyError } from './lib/sealing.ts';
import { createKeyFile, keyFileExists, readKeyFile, replaceKeyFile } from './lib/secret-key-files.ts';
import { resealSecrets, sealPlaintextSecrets, secretCountsByKey, SecretUnreadableError } from './storage/plugin-secrets-repository.ts';

const SEE = 'See docs/operations.md, "Sealed secrets".';

/** Where the key of a process came from. */
type KeySource = { kind: 'variable' } | { kind: 'file'; file: string } | { kind: 'data-dir'; file: string };

interface Resolved {
  keyring: Keyring;
  source: KeySource;
  /** The key was made now (a first start). */
  made: boolean;
  /** `<data dir>/secret.key.next`, when a rotation did not finish: its key opens too. */
  pending: string | undefined;
}

/** The ready key of a started process and what its start says of it (the welcome text). */
export interface SecretKeyReady {
  keyring: Keyring;
  lines: string[];
}

/** The key file a start makes and reads when neither setting is given (SQLite). */
export const defaultKeyFile = (dataDir: string) => path.join(dataDir, 'secret.key');
/** The new key of an unfinished rotation, beside it. */
const pendingKeyFile = (file: string) => `${file}.next`;

const describe = (source: KeySource): string =>
  source.kind === 'variable' ? 'CHARTA_SECRET_KEY' : source.kind === 'file' ? `CHARTA_SECRET_KEY_FILE (${source.file})` : `the key file ${source.file}`;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `key id a: 2, key id b: 1`, or `key id a` alone. */
const keyList = (counts: Array<[string, number]>) =>
  counts.length === 1 ? `key id ${counts[0]![0]}` : counts.map(([id, n]) => `key id ${id}: ${n}`).join(', ');

/**
 * The key of this process. `sealed`: how many values each key id sealed (null when the database is
 * not read: a worker of `--workers`, whose primary checked it); a key is made only when nothing
 * is sealed and `create` allows it.
 */
function resolve(config: Config, sealed: Map<string, number> | null, create: boolean): Resolved {
  if (config.secretKey !== undefined) return { keyring: new Keyring(config.secretKey), source: { kind: 'variable' }, made: false, pending: undefined };
  if (config.secretKeyFile !== undefined) {
    const source: KeySource = { kind: 'file', file: config.secretKeyFile };
    return { keyring: new Keyring(readKeyFile(config.secretKeyFile, describe(source))), source, made: false, pending: undefined };
  }
  if (engineOf(config.databaseUrl) === 'postgres') {
    throw new SecretKeyError(
      'no secret key: on PostgreSQL set CHARTA_SECRET_KEY or CHARTA_SECRET_KEY_FILE, the same for every process on the database ' +
        "(plugin secrets are sealed with it, and a key made in one host's data directory would not be on the others); " +
        `make one with: (umask 077; openssl rand -base64 32 > /etc/charta/secret.key). ${SEE}`,
    );
  }
  const file = defaultKeyFile(config.dataDir);
  const source: KeySource = { kind: 'data-dir', file };
  const next = pendingKeyFile(file);
  const opening = keyFileExists(next) ? [readKeyFile(next, `the key file ${next}`)] : [];
  const pending = opening.length > 0 ? next : undefined;
  if (keyFileExists(file)) return { keyring: new Keyring(readKeyFile(file, describe(source)), opening), source, made: false, pending };
  const count = sealed === null ? 0 : [...sealed.values()].reduce((a, b) => a + b, 0);
  if (count > 0) {
    throw new SecretKeyError(
      `no secret key: ${plural(count, 'plugin secret')} ${count === 1 ? 'is' : 'are'} sealed (${keyList([...sealed!])}), but neither ` +
        `CHARTA_SECRET_KEY nor CHARTA_SECRET_KEY_FILE is set and ${file} does not exist; set the key they were sealed with ` +
        `(a new key would not open them). ${SEE}`,
    );
  }
  if (!create) throw new SecretKeyError(`no secret key: ${file} does not exist, and neither CHARTA_SECRET_KEY nor CHARTA_SECRET_KEY_FILE is set. ${SEE}`);
  const key = SecretKey.generate();
  createKeyFile(file, key);
  return { keyring: new Keyring(key, opening), source, made: true, pending };
}

/** Refuses a keyring that lacks a key some values were sealed with: how many, and their key ids. */
function checkSealedWith(resolved: Resolved, sealed: Map<string, number>): void {
  const foreign = [...sealed].filter(([id]) => !resolved.keyring.has(id));
  if (foreign.length === 0) return;
  const count = foreign.reduce((a, [, n]) => a + n, 0);
  const given = resolved.keyring.ids();
  throw new SecretKeyError(
    `${describe(resolved.source)} does not match the key that sealed ${plural(count, 'plugin secret')} (${keyList(foreign)}); ` +
      `set the key they were sealed with (the key given has key id ${given.join(', key id ')}). ${SEE}`,
  );
}

/** How many values each key id sealed, plaintext left out. */
async function sealedCounts(storage: Storage): Promise<{ sealed: Map<string, number>; plaintext: number }> {
  const counts = await secretCountsByKey(storage.db);
  const sealed = new Map<string, number>();
  for (const [id, n] of counts) if (id !== null) sealed.set(id, n);
  return { sealed, plaintext: counts.get(null) ?? 0 };
}

/**
 * A start's step, after the migrations: the key found (or made, on a first start), checked against
 * every sealed value (SecretKeyError: the start refuses), and the values an earlier version stored
 * in plaintext sealed, in one transaction (on SQLite the file is then rewritten and its log emptied
 * so that no copy of the plaintext stays).
 */
export async function prepareSecretKey(storage: Storage, config: Config): Promise<SecretKeyReady> {
  const { sealed, plaintext } = await sealedCounts(storage);
  const resolved = resolve(config, sealed, true);
  checkSealedWith(resolved, sealed);
  const { keyring, source } = resolved;
  const lines = [
    resolved.made && source.kind === 'data-dir'
      ? `Secret key: made ${source.file} (mode 0600, key id ${keyring.sealing.id}). Plugin secrets are sealed with it: ` +
        `back it up apart from the database, which cannot open them without it (docs/operations.md, "Sealed secrets").`
      : `Secret key: ${describe(source)} (key id ${keyring.sealing.id}).`,
  ];
  if (plaintext > 0) {
    const count = await storage.transact((trx) => sealPlaintextSecrets(trx, keyring));
    if (count > 0) {
      await storage.scrub();
      lines.push(
        `Sealed ${plural(count, 'plugin secret')} that an earlier version stored in plaintext (key id ${keyring.sealing.id})` +
          (storage.engine === 'sqlite' ? '; the SQLite file was rewritten so that no copy of the plaintext is left in it.' : '.'),
      );
    }
  }
  if (resolved.pending !== undefined) {
    lines.push(`A rotation of the secret key did not finish (${resolved.pending} exists): run charta-server rotate-secret-key again to finish it.`);
  }
  return { keyring, lines };
}

/** The key of a worker of `--workers`: its primary made and checked it; the worker only reads it. */
export function openSecretKey(config: Config): Keyring {
  return resolve(config, null, false).keyring;
}

/**
 * `charta-server rotate-secret-key` (docs/operations.md, "Sealed secrets"): every value sealed again
 * under the new key, in one transaction; the lines it prints. The new key is the one in
 * `newKeyFile` (made there, mode 0600, when the file does not exist); without it, when the key is
 * the data directory's, a new one made in `secret.key.next`, which replaces `secret.key` once every
 * value is sealed with it.
 */
export async function rotateSecretKey(storage: Storage, config: Config, newKeyFile: string | undefined): Promise<string[]> {
  const { sealed, plaintext } = await sealedCounts(storage);
  const current = resolve(config, sealed, false);
  const lines: string[] = [];
  /** A key file this run made: removed if the rotation fails before its commit (it sealed nothing). */
  let made: string | undefined;
  const take = (file: string, origin: string): SecretKey => {
    if (keyFileExists(file)) return readKeyFile(file, origin);
    const key = SecretKey.generate();
    createKeyFile(file, key);
    made = file;
    lines.push(`Made the new key ${file} (mode 0600, key id ${key.id}).`);
    return key;
  };
  let target: SecretKey;
  let finish: (() => string) | undefined;
  if (newKeyFile !== undefined) {
    const file = path.resolve(newKeyFile);
    target = take(file, `--new-key-file (${file})`);
    finish = () => `Now set CHARTA_SECRET_KEY_FILE=${file} (or CHARTA_SECRET_KEY to what it holds) for every process of the instance, and start it.`;
  } else if (current.source.kind === 'data-dir') {
    const file = current.source.file;
    const next = pendingKeyFile(file);
    target = take(next, `the key file ${next}`);
    finish = () => {
      replaceKeyFile(next, file);
      return `${file} now holds the new key.`;
    };
  } else {
    throw new SecretKeyError(
      `the key is ${describe(current.source)}: give the new key's file with --new-key-file PATH (made there if it does not exist), then set it in place of the old. ${SEE}`,
    );
  }
  const keyring = current.keyring.sealingWith(target);
  const before = [...sealed].filter(([id]) => id !== target.id);
  let count: number;
  try {
    checkSealedWith({ ...current, keyring }, sealed);
    count = await storage.transact((trx) => resealSecrets(trx, keyring));
  } catch (err) {
    // Refused before anything was written (a key missing, a value that does not open: the
    // transaction rolled back), the key made now sealed nothing. After any other failure (a
    // connection lost during COMMIT) it may have sealed everything: it stays.
    if (made !== undefined && (err instanceof SecretKeyError || err instanceof SecretUnreadableError)) fs.rmSync(made, { force: true });
    throw err;
  }
  // The values under the old key (and any plaintext) stay in SQLite's free pages until rewritten.
  if (count > 0) await storage.scrub();
  const earlier = [...(before.length > 0 ? [keyList(before)] : []), ...(plaintext > 0 ? [`plaintext: ${plaintext}`] : [])];
  const was = earlier.length === 0 ? '' : `; before: ${earlier.join(', ')}`;
  lines.push(`Sealed ${plural(count, 'plugin secret')} again with the new key (key id ${target.id}${was}).`);
  lines.push(finish());
  const old = current.keyring.ids().filter((id) => id !== target.id);
  if (old.length > 0) {
    lines.push(
      `The old key (key id ${old.join(', key id ')}) is no longer needed by this database; keep a copy only with the backups taken before, which need it.`,
    );
  }
  return lines;
}
