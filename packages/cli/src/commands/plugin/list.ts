// charta plugin list [--host URL] [--api-key KEY]
// Every installed plugin, in one line (every page of the instance's list: pages.ts).
import type { Command } from 'commander';
import { bind, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { EXIT, envelope, printLine, type ExitCode } from '../../output.ts';
import type { TargetFlags } from '../../target.ts';
import { clientFor, targetFlags, withTargetOptions } from '../../instance.ts';
import { allPages } from './pages.ts';

export interface ListOptions {
  target: TargetFlags;
}

export function parse({ flags }: RawInput): ListOptions {
  return { target: targetFlags(flags) };
}

export async function run(io: IO, options: ListOptions): Promise<ExitCode> {
  const results = await allPages(clientFor(io, options.target), (charta, page) => charta.plugins.list(page));
  printLine(io.stdout, envelope(true, { count: results.length, results }, { status_code: 200 }));
  return EXIT.ok;
}

export function register(parent: Command, session: Session): Command {
  return withTargetOptions(parent.command('list').description('list the installed plugins')).action(bind(session, { parse, run }));
}
