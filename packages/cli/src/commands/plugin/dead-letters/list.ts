// charta plugin dead-letters list <name> [--host URL] [--api-key KEY]
// Every dead letter of the plugin, newest first, in one line (every page of the instance's list).
import type { Command } from 'commander';
import { bind, type RawInput, type Session } from '../../../command.ts';
import type { IO } from '../../../io.ts';
import { EXIT, envelope, printLine, type ExitCode } from '../../../output.ts';
import type { TargetFlags } from '../../../target.ts';
import { clientFor, targetFlags } from '../../../instance.ts';
import { namedPluginCommand, pluginNameArgument } from '../named-plugin.ts';
import { allPages } from '../pages.ts';

export interface ListOptions {
  name: string;
  target: TargetFlags;
}

export function parse({ args, flags }: RawInput): ListOptions {
  return { name: pluginNameArgument(args), target: targetFlags(flags) };
}

export async function run(io: IO, options: ListOptions): Promise<ExitCode> {
  const results = await allPages(clientFor(io, options.target), (charta, page) => charta.plugins.deadLetters(options.name, page));
  printLine(io.stdout, envelope(true, { count: results.length, results }, { status_code: 200 }));
  return EXIT.ok;
}

export function register(parent: Command, session: Session): Command {
  return namedPluginCommand(parent, 'list', "list the plugin's dead letters, newest first").action(bind(session, { parse, run }));
}
