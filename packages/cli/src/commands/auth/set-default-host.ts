// charta auth set-default-host HOST: the host used when a command gets no --host and
// CHARTA_HOST is unset. HOST must already have a stored key.
import type { Command } from 'commander';
import { bind, optionalString, storeFor, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { EXIT, Failure, printLine, envelope, type ExitCode } from '../../output.ts';
import { normalizeHost } from '../../target.ts';

export interface SetDefaultHostOptions {
  host: string;
}

export function parse({ args }: RawInput): SetDefaultHostOptions {
  return { host: normalizeHost(optionalString(args[0]) ?? '') };
}

export async function run(io: IO, { host }: SetDefaultHostOptions): Promise<ExitCode> {
  const store = storeFor(io);
  if (!store.load().hosts[host]) {
    throw new Failure(`${host} has no stored API key; add it first with \`charta auth add-api-key --host ${host}\``, { host });
  }
  store.update((credentials) => {
    credentials.default_host = host;
  });
  printLine(io.stdout, envelope(true, `${host} is the default host`, { host }));
  return EXIT.ok;
}

export function register(parent: Command, session: Session): Command {
  return parent
    .command('set-default-host')
    .description('use a stored host when a command gets no --host')
    .argument('<host>', 'a host added with add-api-key')
    .action(bind(session, { parse, run }));
}
