// charta plugin dead-letters replay <name> <id> [--host URL] [--api-key KEY]
// Delivers the letter's event again, to its one handler; the line is the letter (202).
import type { Command } from 'commander';
import { bind, type RawInput, type Session } from '../../../command.ts';
import type { IO } from '../../../io.ts';
import type { ExitCode } from '../../../output.ts';
import type { TargetFlags } from '../../../target.ts';
import { targetFlags } from '../../../instance.ts';
import { pluginNameArgument, requestPlugin } from '../named-plugin.ts';
import { letterIdArgument, namedLetterCommand } from './letter.ts';

export interface ReplayOptions {
  name: string;
  id: string;
  target: TargetFlags;
}

export function parse({ args, flags }: RawInput): ReplayOptions {
  return { name: pluginNameArgument(args), id: letterIdArgument(args), target: targetFlags(flags) };
}

export function run(io: IO, options: ReplayOptions): Promise<ExitCode> {
  return requestPlugin(io, options.target, 202, (charta) => charta.plugins.replayDeadLetter(options.name, options.id));
}

export function register(parent: Command, session: Session): Command {
  return namedLetterCommand(parent, 'replay', "deliver a dead letter's event again, to its one handler").action(bind(session, { parse, run }));
}
