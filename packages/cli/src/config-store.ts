// The credentials file (docs/cli.md, "Credentials"): `credentials.json` in $CHARTA_CONFIG_DIR, else
// $XDG_CONFIG_HOME/charta/, else ~/.config/charta/ (env-paths' location on Windows). The
// directory is kept 0700 and the file 0600: looser modes found on disk are tightened (with a
// warning on stderr) before the file is read, and every write goes to a 0600 temporary file in
// the same directory that is fsynced and renamed over the old one, so a crash leaves either the
// old or the new file, never half of one.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import envPaths from 'env-paths';
import { Failure } from './output.ts';

export const CREDENTIALS_FILE = 'credentials.json';
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
/** How long an update waits for another process's lock, and when a lock counts as left over. */
const LOCK_WAIT_MS = 5_000;
const LOCK_STALE_MS = 30_000;
/** Atomics.wait on it is a synchronous sleep (the store's API is synchronous). */
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));
/** POSIX modes mean nothing on Windows; the user profile's ACLs protect the file there. */
const CHECK_MODES = process.platform !== 'win32';

export interface HostEntry {
  api_key: string;
}

export interface Credentials {
  default_host: string | null;
  /** Keyed by normalized host (`scheme://host[:port]`). */
  hosts: Record<string, HostEntry>;
}

export type Env = Record<string, string | undefined>;

export const emptyCredentials = (): Credentials => ({ default_host: null, hosts: {} });

/** Where the credentials live for this environment. */
export function configDir(env: Env): string {
  const explicit = env.CHARTA_CONFIG_DIR?.trim();
  if (explicit) return path.resolve(explicit);
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const xdg = env.XDG_CONFIG_HOME?.trim();
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'charta');
  if (process.platform === 'win32') return envPaths('charta', { suffix: '' }).config;
  return path.join(env.HOME || os.homedir(), '.config', 'charta');
}

export class CredentialStore {
  readonly file: string;

  constructor(
    readonly dir: string,
    private readonly warn: (message: string) => void = () => {},
    private readonly lockWaitMs = LOCK_WAIT_MS,
  ) {
    this.file = path.join(dir, CREDENTIALS_FILE);
  }

  static fromEnv(env: Env, warn?: (message: string) => void): CredentialStore {
    return new CredentialStore(configDir(env), warn);
  }

  /** The stored credentials; an absent file or directory is an empty store (nothing is created). */
  load(): Credentials {
    this.secure();
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyCredentials();
      throw new Failure(`Cannot read ${this.file}: ${(err as Error).message}`, { path: this.file });
    }
    return parseCredentials(text, this.file);
  }

  /** Writes the whole file atomically, creating the directory (0700) if needed. */
  save(credentials: Credentials): void {
    try {
      fs.mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
    } catch (err) {
      throw new Failure(`Cannot create ${this.dir}: ${(err as Error).message}`, { path: this.dir });
    }
    this.secure();
    const tmp = path.join(this.dir, `.${CREDENTIALS_FILE}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`);
    try {
      const fd = fs.openSync(tmp, 'wx', FILE_MODE);
      try {
        if (CHECK_MODES) fs.fchmodSync(fd, FILE_MODE); // exact mode whatever the umask
        fs.writeFileSync(fd, `${JSON.stringify(credentials, null, 2)}\n`);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, this.file);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw new Failure(`Cannot write ${this.file}: ${(err as Error).message}`, { path: this.file });
    }
    syncDirectory(this.dir);
  }

  /**
   * Read, change, write back, holding the store's lock file so that two `charta` processes
   * changing the credentials at once both keep their change; returns what `change` returns.
   */
  update<T>(change: (credentials: Credentials) => T): T {
    const release = this.lock();
    try {
      const credentials = this.load();
      const result = change(credentials);
      this.save(credentials);
      return result;
    } finally {
      release();
    }
  }

  /**
   * Takes `credentials.json.lock` (created exclusively), waiting up to `lockWaitMs` for another
   * process to release it; a lock older than LOCK_STALE_MS is left over by a crash and removed.
   */
  private lock(): () => void {
    try {
      fs.mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
    } catch (err) {
      throw new Failure(`Cannot create ${this.dir}: ${(err as Error).message}`, { path: this.dir });
    }
    const lockFile = `${this.file}.lock`;
    const deadline = Date.now() + this.lockWaitMs;
    for (;;) {
      try {
        fs.closeSync(fs.openSync(lockFile, 'wx', FILE_MODE));
        return () => fs.rmSync(lockFile, { force: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new Failure(`Cannot lock ${this.file}: ${(err as Error).message}`, { path: lockFile });
      }
      const age = Date.now() - (fs.statSync(lockFile, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > LOCK_STALE_MS) fs.rmSync(lockFile, { force: true });
      else if (Date.now() > deadline) throw new Failure(`${this.file} is locked by another charta process (${lockFile}); try again`, { path: lockFile });
      else Atomics.wait(SLEEPER, 0, 0, 10);
    }
  }

  /** Tightens the directory to 0700 and the file to 0600 if they exist with looser modes. */
  private secure(): void {
    if (!CHECK_MODES) return;
    this.tighten(this.dir, DIR_MODE, true);
    this.tighten(this.file, FILE_MODE, false);
  }

  private tighten(target: string, mode: number, directory: boolean): void {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw new Failure(`Cannot inspect ${target}: ${(err as Error).message}`, { path: target });
    }
    if (directory ? !stat.isDirectory() : !stat.isFile()) {
      throw new Failure(`${target} is not a ${directory ? 'directory' : 'regular file'}`, { path: target });
    }
    const current = stat.mode & 0o777;
    if ((current & ~mode) === 0) return;
    try {
      fs.chmodSync(target, current & mode);
    } catch (err) {
      // A credentials file others can read and we cannot fix is not used.
      throw new Failure(`${target} is accessible to other users (mode ${octal(current)}) and cannot be tightened: ${(err as Error).message}`, {
        path: target,
      });
    }
    this.warn(`tightened the permissions of ${target} from ${octal(current)} to ${octal(current & mode)}`);
  }
}

function parseCredentials(text: string, file: string): Credentials {
  const invalid = (why: string) => new Failure(`${file} is not a valid credentials file: ${why}`, { path: file });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw invalid((err as Error).message);
  }
  if (!isObject(data)) throw invalid('expected a JSON object');
  const defaultHost = data.default_host ?? null;
  if (defaultHost !== null && typeof defaultHost !== 'string') throw invalid('"default_host" must be a string or null');
  const hosts = data.hosts ?? {};
  if (!isObject(hosts)) throw invalid('"hosts" must be an object');
  const out: Credentials = { default_host: defaultHost, hosts: {} };
  for (const [host, entry] of Object.entries(hosts)) {
    if (!isObject(entry) || typeof entry.api_key !== 'string') throw invalid(`"hosts.${host}.api_key" must be a string`);
    out.hosts[host] = { api_key: entry.api_key };
  }
  return out;
}

/** Makes the rename itself durable; not every platform can open a directory, hence best effort. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // best effort
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const octal = (mode: number) => `0${mode.toString(8).padStart(3, '0')}`;
