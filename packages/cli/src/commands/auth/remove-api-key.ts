// charta auth remove-api-key HOST: forgets the key of HOST, and the default if it was HOST.
import type { Command } from 'commander';
import { bind, optionalString, storeFor, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { EXIT, Failure, printLine, envelope, type ExitCode } from '../../output.ts';
import { normalizeHost } from '../../target.ts';

export interface RemoveApiKeyOptions {
  host: string;
}

export function parse({ args }: RawInput): RemoveApiKeyOptions {
  return { host: normalizeHost(optionalString(args[0]) ?? '') };
}

export async function run(io: IO, { host }: RemoveApiKeyOptions): Promise<ExitCode> {
  const store = storeFor(io);
  if (!store.load().hosts[host]) throw new Failure(`${host} not found`, { host });
  const wasDefault = store.update((credentials) => {
    delete credentials.hosts[host];
    if (credentials.default_host !== host) return false;
    credentials.default_host = null;
    return true;
  });
  printLine(io.stdout, envelope(true, `${host} removed`, { host, was_default: wasDefault }));
  return EXIT.ok;
}

export function register(parent: Command, session: Session): Command {
  return parent
    .command('remove-api-key')
    .description('forget the API key of a host (and the default host, if it was this one)')
    .argument('<host>', 'the instance, as given to add-api-key')
    .action(bind(session, { parse, run }));
}
