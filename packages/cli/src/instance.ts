// The tool's adapter to @charta/client, the one HTTP client (docs/architecture.md): every call to
// an instance goes through a ChartaClient with the raw API key in `Authorization` and redirects
// not followed (the key must not travel to another place than the one asked). The client speaks
// the original tool's wire (docs/api.md, "Plugins"): multipart with the file field `package`,
// `is_enabled` as Python's `True`/`False`, a form-encoded PATCH when only flags are sent, secrets
// as repeated `secret` fields of base64 `KEY=value`, grants as repeated `grant` and `revoke`
// fields. Here its failures become CliErrors: an unreachable host a Failure, an unexpected
// status an InstanceFailure carrying the answer as it came, so commands only handle the answers
// they expect.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { ChartaApiError, ChartaClient, ChartaNetworkError, type AnswerSeen, type FetchLike, type PluginPackage } from '@charta/client';
import { optionalString, storeFor } from './command.ts';
import type { IO } from './io.ts';
import { CliError, EXIT, Failure, UsageError, responseEnvelope, type Envelope } from './output.ts';
import { resolveTarget, type Target, type TargetFlags } from './target.ts';

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

/** A repeatable option of commander (`--secret KEY=VALUE`, `--grant NAME`…): each value appended. */
export const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** The values of a repeatable option (collect), [] when it was not given. */
export const collected = (values: unknown): string[] => (Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string') : []);

/**
 * `--secret KEY=VALUE` values as [KEY, VALUE] pairs, in order, split at the first `=` (the client
 * sends each as the original tool does: base64 of `KEY=VALUE`). One without `=` or with an empty
 * key is a usage error that never shows the value (it may be a secret typed without its name).
 */
export function secretFields(values: unknown): Array<[string, string]> {
  const given = Array.isArray(values) ? values : [];
  return given.map((value, i): [string, string] => {
    if (typeof value !== 'string' || value.indexOf('=') <= 0) {
      throw new UsageError(`--secret must be KEY=VALUE (the ${ordinal(i + 1)} --secret has no KEY= before its value; it is not shown)`);
    }
    const at = value.indexOf('=');
    return [value.slice(0, at), value.slice(at + 1)];
  });
}

const ordinal = (n: number) =>
  `${n}${n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th'}`;

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

/** A package file as the client uploads it. */
export const uploadOf = (file: PackageFile): PluginPackage => ({ name: file.name, data: new Uint8Array(file.bytes) });

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

/** What the instance answered: its status and body as it came. */
export function answerOf(status: number, text: string): Answer {
  let json: unknown;
  try {
    json = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, text, json };
}

/** A client for one instance and key: a ChartaClient, and the answer of each call as it came. */
export class InstanceClient {
  readonly charta: ChartaClient;
  private last: AnswerSeen | undefined;

  constructor(
    readonly target: Target,
    fetchImpl?: FetchLike,
  ) {
    this.charta = new ChartaClient({
      baseUrl: target.host,
      apiKey: target.apiKey,
      fetch: fetchImpl,
      // Redirects are not followed: the key must not travel to another place than the one asked.
      requestInit: { redirect: 'manual' },
      onAnswer: (answer) => (this.last = answer),
    });
  }

  /** Runs one call of the client; answers what the instance answered, whatever its status. A host that cannot be reached is a Failure. */
  async attempt(call: (charta: ChartaClient) => Promise<unknown>): Promise<Answer> {
    this.last = undefined;
    try {
      await call(this.charta);
    } catch (err) {
      if (err instanceof ChartaApiError) return answerOf(err.status, err.body);
      // An answer came but could not be decoded: it is still the answer.
      if (!(err instanceof ChartaNetworkError)) throw err;
      if (this.last === undefined) throw new Failure(`Failed to connect to ${this.target.host}: ${reasonOf(err.cause)}`);
    }
    return answerOf(this.last!.status, this.last!.text);
  }

  /** Like attempt, but any status other than `expected` is an InstanceFailure. */
  async expect(expected: number, call: (charta: ChartaClient) => Promise<unknown>): Promise<Answer> {
    const answer = await this.attempt(call);
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
