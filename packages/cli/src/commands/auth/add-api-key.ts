// charta auth add-api-key --host URL --api-key KEY [--is-default|--no-is-default] [--force]
// Stores an API key for a host. What is missing is prompted for only when stdin is a terminal;
// otherwise it is a usage error. An existing key is replaced only after confirmation on a
// terminal, or with --force. The key is never printed.
import type { Command } from 'commander';
import { bind, optionalString, storeFor, validity, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { EXIT, Failure, printLine, envelope, UsageError, type ExitCode } from '../../output.ts';
import { normalizeHost } from '../../target.ts';

export interface AddApiKeyOptions {
  host?: string | undefined;
  apiKey?: string | undefined;
  /** undefined: neither --is-default nor --no-is-default was given. */
  isDefault?: boolean | undefined;
  force: boolean;
}

export function parse({ flags }: RawInput): AddApiKeyOptions {
  const host = optionalString(flags.host);
  const apiKey = optionalString(flags.apiKey);
  return {
    host: host === undefined ? undefined : normalizeHost(host),
    apiKey: apiKey === undefined ? undefined : checkApiKey(apiKey),
    isDefault: typeof flags.isDefault === 'boolean' ? flags.isDefault : undefined,
    force: flags.force === true,
  };
}

export async function run(io: IO, options: AddApiKeyOptions): Promise<ExitCode> {
  const store = storeFor(io);
  if (!io.isTTY) {
    const missing = [options.host === undefined && '--host', options.apiKey === undefined && '--api-key'].filter(Boolean);
    if (missing.length) throw new UsageError(`Missing ${missing.join(' and ')} (stdin is not a terminal, so charta cannot prompt)`);
  }

  const host =
    options.host ??
    normalizeHost(
      await io.prompt.input({
        message: 'Host (for example https://charta.example.com)',
        validate: (value) => validity(() => normalizeHost(value)),
      }),
    );

  if (store.load().hosts[host] && !options.force) {
    if (!io.isTTY) throw new UsageError(`${host} already has an API key; pass --force to replace it`, { host });
    const replace = await io.prompt.confirm({ message: `${host} already has an API key. Replace it?`, default: false });
    if (!replace) throw new Failure(`${host} unchanged`, { host });
  }

  const apiKey = options.apiKey ?? checkApiKey(await io.prompt.password({ message: 'API key', validate: (value) => validity(() => checkApiKey(value)) }));

  let isDefault = options.isDefault;
  if (isDefault === undefined && io.isTTY) {
    const current = store.load().default_host;
    isDefault = current === host || (await io.prompt.confirm({ message: `Use ${host} as the default host?`, default: current === null }));
  }

  // Re-read right before writing so a change made by another process meanwhile is kept.
  const nowDefault = store.update((credentials) => {
    credentials.hosts[host] = { api_key: apiKey };
    if (isDefault) credentials.default_host = host;
    return credentials.default_host === host;
  });
  printLine(io.stdout, envelope(true, `${host} saved`, { host, is_default: nowDefault }));
  return EXIT.ok;
}

/** Keys travel raw in the Authorization header, so they cannot be empty or hold control characters. */
function checkApiKey(value: string): string {
  const key = value.trim();
  if (key === '') throw new UsageError('The API key is empty');
  if (/[\u0000-\u001f\u007f]/.test(key)) throw new UsageError('The API key contains control characters');
  return key;
}

export function register(parent: Command, session: Session): Command {
  return parent
    .command('add-api-key')
    .description('store the API key of a Charta instance (prompts for what is missing on a terminal)')
    .option('--host <url>', 'the instance, http(s)://host[:port] or localhost')
    .option('--api-key <key>', 'the API key')
    .option('--is-default', 'use this host when a command gets no --host')
    .option('--no-is-default', 'do not make this host the default (no prompt)')
    .option('--force', 'replace an existing key without asking')
    .action(bind(session, { parse, run }));
}
