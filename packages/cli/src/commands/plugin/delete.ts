// charta plugin delete <name> [--force] [--host URL] [--api-key KEY]
// Deletes a plugin; the instance refuses an enabled one (400) unless --force.
import type { Command } from 'commander';
import { bind, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import type { ExitCode } from '../../output.ts';
import type { TargetFlags } from '../../target.ts';
import { targetFlags } from '../../instance.ts';
import { namedPluginCommand, pluginNameArgument, requestPlugin } from './named-plugin.ts';

export interface DeleteOptions {
  name: string;
  force: boolean;
  target: TargetFlags;
}

export function parse({ args, flags }: RawInput): DeleteOptions {
  return { name: pluginNameArgument(args), force: flags.force === true, target: targetFlags(flags) };
}

export function run(io: IO, options: DeleteOptions): Promise<ExitCode> {
  return requestPlugin(io, options.target, 204, (charta) => charta.plugins.delete(options.name, { force: options.force === true }));
}

export function register(parent: Command, session: Session): Command {
  return namedPluginCommand(parent, 'delete', 'delete a disabled plugin (--force: also an enabled one)')
    .option('--force', 'delete it even if it is enabled')
    .action(bind(session, { parse, run }));
}
