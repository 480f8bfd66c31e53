// charta plugin list [--host URL] [--api-key KEY]
// Every installed plugin, in one line (every page of the instance's list: pages.ts), and the
// routes of theirs anyone may call without credentials.
import type { Command } from 'commander';
import { bind, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { EXIT, envelope, printLine, type ExitCode } from '../../output.ts';
import type { TargetFlags } from '../../target.ts';
import { clientFor, targetFlags, withTargetOptions } from '../../instance.ts';
import { allPages } from './pages.ts';
import type { Plugin } from '@charta/api';

export interface ListOptions {
  target: TargetFlags;
}

export function parse({ flags }: RawInput): ListOptions {
  return { target: targetFlags(flags) };
}

export async function run(io: IO, options: ListOptions): Promise<ExitCode> {
  const results = (await allPages(clientFor(io, options.target), (charta, page) => charta.plugins.list(page))) as Plugin[];
  // Routes anyone may call, without credentials, flagged on their own (docs/cli.md, "charta plugin list").
  const publicRoutes = results.flatMap((p) => (p.routes ?? []).filter((r) => r.auth === 'public').map((r) => `${r.method} ${r.url}`));
  printLine(io.stdout, envelope(true, { count: results.length, results, public_routes: publicRoutes }, { status_code: 200 }));
  return EXIT.ok;
}

export function register(parent: Command, session: Session): Command {
  return withTargetOptions(parent.command('list').description('list the installed plugins')).action(bind(session, { parse, run }));
}
