// charta print-config: where the credentials live, the default host and the stored host
// names (never the keys).
import type { Command } from 'commander';
import { bind, storeFor, type Session } from '../command.ts';
import type { IO } from '../io.ts';
import { EXIT, printLine, envelope, type ExitCode } from '../output.ts';

export type PrintConfigOptions = Record<string, never>;

export function parse(): PrintConfigOptions {
  return {};
}

export async function run(io: IO, _options: PrintConfigOptions): Promise<ExitCode> {
  const store = storeFor(io);
  const credentials = store.load();
  printLine(
    io.stdout,
    envelope(true, {
      config_dir: store.dir,
      credentials_file: store.file,
      default_host: credentials.default_host,
      hosts: Object.keys(credentials.hosts).sort(),
    }),
  );
  return EXIT.ok;
}

export function register(parent: Command, session: Session): Command {
  return parent
    .command('print-config')
    .description('show the credentials location, the default host and the stored hosts (not the keys)')
    .action(bind(session, { parse, run }));
}
