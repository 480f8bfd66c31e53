// charta auth get-api-key HOST: prints the stored key of HOST (exit 1 if there is none).
import type { Command } from 'commander';
import { bind, optionalString, storeFor, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { EXIT, Failure, printLine, envelope, type ExitCode } from '../../output.ts';
import { normalizeHost } from '../../target.ts';

export interface GetApiKeyOptions {
  host: string;
}

export function parse({ args }: RawInput): GetApiKeyOptions {
  return { host: normalizeHost(optionalString(args[0]) ?? '') };
}

export async function run(io: IO, { host }: GetApiKeyOptions): Promise<ExitCode> {
  const entry = storeFor(io).load().hosts[host];
  if (!entry) throw new Failure(`${host} not found`, { host });
  printLine(io.stdout, envelope(true, undefined, { host, api_key: entry.api_key }));
  return EXIT.ok;
}

export function register(parent: Command, session: Session): Command {
  return parent
    .command('get-api-key')
    .description('print the API key stored for a host')
    .argument('<host>', 'the instance, as given to add-api-key')
    .action(bind(session, { parse, run }));
}
