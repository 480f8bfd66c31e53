// The one place the tool speaks HTTP to an instance, on the wire of the original tool
// (docs/api.md, "Plugins"): `{host}/core/api/v1/plugins/…/` with a trailing slash, the raw API
// key in `Authorization`, multipart with the file field `package` and `is_enabled` as Python's
// `True`/`False`, a form-encoded PATCH when only the flag is sent, secrets as repeated `secret`
// fields of base64 `KEY=value`, grants as repeated `grant` and `revoke` fields. Network failures and
// unexpected statuses become CliErrors, so commands only handle the answers they expect.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { optionalString, storeFor } from './command.ts';
import type { IO } from './io.ts';
import { CliError, EXIT, Failure, UsageError, responseEnvelope, type Envelope } from './output.ts';
import { resolveTarget, type Target, type TargetFlags } from './target.ts';

export const PLUGINS_PATH = '/core/api/v1/plugins/';
const PACKAGE_SUFFIXES = ['.whl', '.tar.gz'];

/** A package file read from disk, ready to upload. */
export interface PackageFile {
  path: string;
  name: string;
  bytes: Buffer;
}

export interface Answer {
  status: number;
  /** The body as text ('' when empty). */
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** The instance answered with a status the command did not expect: its body and status as the line. */
export class InstanceFailure extends CliError {
  constructor(readonly answer: Answer) {
    super(`The instance answered ${answer.status}`, EXIT.failure);
  }

  override toEnvelope(): Envelope {
    return responseEnvelope(false, this.answer.status, this.answer.text);
  }
}

/**
 * The repeated fields of a body, each sent once per value in order: `secret` (each already base64
 * of `KEY=value`, secretFields), `grant` and `revoke` (grant names, docs/plugins.md "Grants").
 */
export type RepeatedFields = Partial<Record<'secret' | 'grant' | 'revoke', string[]>>;

export type Body =
  | { kind: 'multipart'; fields: Record<string, string>; repeated?: RepeatedFields | undefined; file?: PackageFile | undefined }
  | { kind: 'form'; fields: Record<string, string>; repeated?: RepeatedFields | undefined }
  | { kind: 'empty' };

/** Whether the body's repeated fields hold any value. */
export const hasRepeated = (repeated: RepeatedFields): boolean => Object.values(repeated).some((values) => values.length > 0);

/** Each repeated field's values, in order, as [name, value] pairs. */
const repeatedPairs = (repeated: RepeatedFields | undefined): Array<[string, string]> =>
  Object.entries(repeated ?? {}).flatMap(([name, values]) => values.map((value): [string, string] => [name, value]));

export interface RequestOptions {
  query?: Record<string, string> | undefined;
  body?: Body | undefined;
}

/** A repeatable option of commander (`--secret KEY=VALUE`, `--grant NAME`…): each value appended. */
export const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** The values of a repeatable option (collect), [] when it was not given. */
export const collected = (values: unknown): string[] => (Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string') : []);

/**
 * `--secret KEY=VALUE` values as the original tool sends them: base64 of `KEY=VALUE`, split at
 * the first `=`. One without `=` or with an empty key is a usage error that never shows the value
 * (it may be a secret typed without its name).
 */
export function secretFields(values: unknown): string[] {
  const given = Array.isArray(values) ? values : [];
  return given.map((value, i) => {
    if (typeof value !== 'string' || value.indexOf('=') <= 0) {
      throw new UsageError(`--secret must be KEY=VALUE (the ${ordinal(i + 1)} --secret has no KEY= before its value; it is not shown)`);
    }
    return Buffer.from(value, 'utf8').toString('base64');
  });
}

const ordinal = (n: number) =>
  `${n}${n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th'}`;

/** Python's rendering of a bool, as the original tool sends `is_enabled`. */
export const pythonBool = (value: boolean) => (value ? 'True' : 'False');

/**
 * Checks a package argument: an existing regular file named `*.whl` or `*.tar.gz` (its content
 * is judged by the instance). A directory or anything else is a usage error.
 */
export function checkPackagePath(file: string): string {
  const stat = statOf(file);
  if (stat.isDirectory()) throw new UsageError(`${file} is a directory; build it with \`charta plugin build\` and pass the .tar.gz`, { path: file });
  if (!stat.isFile()) throw new UsageError(`Not a regular file: ${file}`, { path: file });
  if (!PACKAGE_SUFFIXES.some((suffix) => file.toLowerCase().endsWith(suffix))) {
    throw new UsageError(`A package must be a .whl or .tar.gz file: ${file}`, { path: file });
  }
  return file;
}

/** A plugin project directory or a package file: which one `path` is, checked. */
export function checkProjectOrPackage(target: string): { kind: 'project' | 'package'; path: string } {
  return statOf(target).isDirectory() ? { kind: 'project', path: target } : { kind: 'package', path: checkPackagePath(target) };
}

function statOf(file: string): fs.Stats {
  try {
    return fs.statSync(file);
  } catch {
    throw new UsageError(`No such file or directory: ${file}`, { path: file });
  }
}

export function readPackage(file: string): PackageFile {
  try {
    return { path: file, name: path.basename(file), bytes: fs.readFileSync(file) };
  } catch (err) {
    throw new Failure(`Cannot read ${file}: ${(err as Error).message}`, { path: file });
  }
}

/** `--host` and `--api-key` as the plugin commands take them. */
export function targetFlags(flags: Record<string, unknown>): TargetFlags {
  return { host: optionalString(flags.host), apiKey: optionalString(flags.apiKey) };
}

export function withTargetOptions(command: Command): Command {
  return command
    .option('--host <url>', 'the instance (default: CHARTA_HOST, else the default host)')
    .option('--api-key <key>', 'the API key (default: CHARTA_API_KEY, else the key stored for the host)');
}

/** The client for the host and key these flags, the environment and the credentials file name. */
export function clientFor(io: IO, flags: TargetFlags): InstanceClient {
  return new InstanceClient(resolveTarget(flags, io.env, storeFor(io)));
}

/** A client for one instance and key. */
export class InstanceClient {
  constructor(
    readonly target: Target,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  /** `{host}/core/api/v1/plugins/<segments…>/`, each segment URL-encoded. */
  pluginsUrl(segments: string[] = [], query?: Record<string, string>): string {
    const tail = segments.map((s) => `${encodeURIComponent(s)}/`).join('');
    const url = new URL(`${this.target.host}${PLUGINS_PATH}${tail}`);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
    return url.toString();
  }

  /** Sends a request under the plugins path; throws a Failure when the host cannot be reached. */
  async request(method: string, segments: string[], options: RequestOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { authorization: this.target.apiKey, accept: 'application/json' };
    let body: FormData | URLSearchParams | undefined;
    const given = options.body ?? { kind: 'empty' };
    if (given.kind === 'multipart') {
      const form = new FormData();
      for (const [k, v] of Object.entries(given.fields)) form.set(k, v);
      for (const [name, value] of repeatedPairs(given.repeated)) form.append(name, value);
      if (given.file) {
        const type = given.file.name.toLowerCase().endsWith('.whl') ? 'application/zip' : 'application/gzip';
        form.set('package', new Blob([new Uint8Array(given.file.bytes)], { type }), given.file.name);
      }
      body = form;
    } else if (given.kind === 'form') {
      body = new URLSearchParams(given.fields);
      for (const [name, value] of repeatedPairs(given.repeated)) body.append(name, value);
    }
    const url = this.pluginsUrl(segments, options.query);
    try {
      // Redirects are not followed: the key must not travel to another place than the one asked.
      const response = await this.fetchImpl(url, { method, headers, body, redirect: 'manual' });
      const text = await response.text();
      let json: unknown;
      try {
        json = text.trim() === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: response.status, text, json };
    } catch (err) {
      throw new Failure(`Failed to connect to ${this.target.host}: ${reasonOf(err)}`);
    }
  }

  /** Like request, but any status other than `expected` is an InstanceFailure. */
  async expect(expected: number, method: string, segments: string[], options: RequestOptions = {}): Promise<Answer> {
    const answer = await this.request(method, segments, options);
    if (answer.status !== expected) throw new InstanceFailure(answer);
    return answer;
  }
}

/** The most specific message of a fetch error: undici wraps the socket error in `cause`. */
export function reasonOf(err: unknown): string {
  let current: unknown = err;
  let reason = err instanceof Error ? err.message : String(err);
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof AggregateError && current.errors.length > 0) {
      const first = current.errors[0] as Error;
      reason = first.message || reason;
      current = first.cause;
      continue;
    }
    if (current.message) reason = current.message;
    else if ((current as NodeJS.ErrnoException).code) reason = (current as NodeJS.ErrnoException).code!;
    current = current.cause;
  }
  return reason;
}
