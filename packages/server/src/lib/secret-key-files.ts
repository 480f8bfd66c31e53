// Key files (docs/operations.md, "Sealed secrets"): a file holding one secret key, as base64 (or
// hex) and a newline. Read only when no other user can read or write it, and made so that it is
// never seen half-written: the bytes go to a temporary file created with O_EXCL and mode 0600,
// synced, then linked to its name (a link, like O_EXCL, never replaces a file that exists), and
// the directory synced.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SecretKey, SecretKeyError } from './sealing.ts';

/** File permissions are checked where they mean something (not on Windows). */
const POSIX = process.platform !== 'win32';

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0');

/** Whether a file exists at `file` (a dangling link counts as none). */
export const keyFileExists = (file: string): boolean => fs.statSync(file, { throwIfNoEntry: false }) !== undefined;

/**
 * The key in `file`. Refused (SecretKeyError) when it is missing, not a regular file, readable or
 * writable by other users (group access is allowed, for a secret mounted for a service's group),
 * owned by a user other than this process's or root, or not a key. `origin` names it in messages (`CHARTA_SECRET_KEY_FILE (/etc/charta/secret.key)`).
 */
export function readKeyFile(file: string, origin: string): SecretKey {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat === undefined) throw new SecretKeyError(`${origin} does not exist`);
  if (!stat.isFile()) throw new SecretKeyError(`${origin} is not a regular file`);
  if (POSIX && (stat.mode & 0o007) !== 0) {
    throw new SecretKeyError(`${origin} may be read or written by other users (mode ${octal(stat.mode)}); make it private: chmod 600 ${file}`);
  }
  const uid = process.getuid?.();
  if (POSIX && uid !== undefined && stat.uid !== uid && stat.uid !== 0) {
    throw new SecretKeyError(`${origin} belongs to another user (uid ${stat.uid}), not to this process's (uid ${uid}) or root`);
  }
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new SecretKeyError(`${origin} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return SecretKey.parse(text, origin);
}

/**
 * Refuses a directory other users may write to (they could put their own key in the place of the
 * instance's): the directory a made key goes into.
 */
export function checkKeyDirectory(dir: string): void {
  const stat = fs.statSync(dir, { throwIfNoEntry: false });
  if (stat === undefined) throw new SecretKeyError(`the directory ${dir} does not exist`);
  if (!stat.isDirectory()) throw new SecretKeyError(`${dir} is not a directory`);
  if (POSIX && (stat.mode & 0o022) !== 0 && (stat.mode & 0o1000) === 0) {
    throw new SecretKeyError(`${dir} may be written by other users (mode ${octal(stat.mode)}), so a key kept there cannot be trusted; chmod go-w ${dir}`);
  }
}

/**
 * Writes `key` to `file`, which must not exist, with mode 0600. The directory is made (mode 0700)
 * when missing, and checked (checkKeyDirectory).
 */
export function createKeyFile(file: string, key: SecretKey): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  checkKeyDirectory(dir);
  const temporary = path.join(dir, `.${path.basename(file)}.${crypto.randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(temporary, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  try {
    if (POSIX) fs.fchmodSync(fd, 0o600); // whatever the umask
    fs.writeSync(fd, key.text());
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(temporary, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new SecretKeyError(`${file} already exists: a key is never written over another`);
    throw err;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  syncDirectory(dir);
}

/** Replaces `to` by `from` in one step (a rename), the directory synced: `to` holds the old key or the new one, never neither. */
export function replaceKeyFile(from: string, to: string): void {
  fs.renameSync(from, to);
  syncDirectory(path.dirname(to));
}

function syncDirectory(dir: string): void {
  if (!POSIX) return;
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
