// charta plugin dead-letters discard <name> <id> [--host URL] [--api-key KEY]
// Drops the dead letter for good (204).
import type { Command } from 'commander';
import { bind, type RawInput, type Session } from '../../../command.ts';
import type { IO } from '../../../io.ts';
import type { ExitCode } from '../../../output.ts';
import type { TargetFlags } from '../../../target.ts';
import { targetFlags } from '../../../instance.ts';
import { pluginNameArgument, requestPlugin } from '../named-plugin.ts';
import { letterIdArgument, namedLetterCommand } from './letter.ts';

export interface DiscardOptions {
  name: string;
  id: string;
  target: TargetFlags;
}

export function parse({ args, flags }: RawInput): DiscardOptions {
  return { name: pluginNameArgument(args), id: letterIdArgument(args), target: targetFlags(flags) };
}

export function run(io: IO, options: DiscardOptions): Promise<ExitCode> {
  return requestPlugin(io, options.target, 204, (charta) => charta.plugins.discardDeadLetter(options.name, options.id));
}

export function register(parent: Command, session: Session): Command {
  return namedLetterCommand(parent, 'discard', 'discard a dead letter').action(bind(session, { parse, run }));
}
