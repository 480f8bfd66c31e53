// What `charta plugin dead-letters replay` and `discard` share (docs/cli.md,
// "`charta plugin dead-letters`"): a command on one dead letter of a plugin, named by the plugin
// and the letter's id.
import type { Command } from 'commander';
import { optionalString } from '../../../command.ts';
import { UsageError } from '../../../output.ts';
import { namedPluginCommand } from '../named-plugin.ts';

/** The letter id of the second argument: a positive integer, as the list shows it. */
export function letterIdArgument(args: unknown[]): string {
  const id = (optionalString(args[1]) ?? '').trim();
  if (!/^[1-9][0-9]{0,14}$/.test(id))
    throw new UsageError(`The dead letter id must be a positive integer, as \`plugin dead-letters list\` shows it; got ${JSON.stringify(id)}`);
  return id;
}

/** `charta plugin dead-letters <verb> <name> <id>` with the target options. */
export function namedLetterCommand(parent: Command, verb: string, description: string): Command {
  return namedPluginCommand(parent, verb, description).argument('<id>', 'the dead letter id, as `plugin dead-letters list` shows it');
}
