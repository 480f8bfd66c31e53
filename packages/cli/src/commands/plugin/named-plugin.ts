// What `charta plugin update`, `delete` and `dead-letters …` share (docs/cli.md, "`charta plugin`"):
// a command on one installed plugin, named by its first argument, that sends the instance one
// request about it (or something of it: `[name, 'dead-letters', id]`) and prints the answer as
// the envelope.
import type { Command } from 'commander';
import type { ChartaClient } from '@charta/client';
import { optionalString } from '../../command.ts';
import type { IO } from '../../io.ts';
import { EXIT, printLine, responseEnvelope, UsageError, type ExitCode } from '../../output.ts';
import type { TargetFlags } from '../../target.ts';
import { clientFor, withTargetOptions } from '../../instance.ts';

/** The plugin name of the first argument, trimmed; an empty one is a usage error. */
export function pluginNameArgument(args: unknown[]): string {
  const name = (optionalString(args[0]) ?? '').trim();
  if (name === '') throw new UsageError('The plugin name is empty');
  return name;
}

/** `charta plugin <verb> <name>` with the target options; the caller adds its own arguments, options and action. */
export function namedPluginCommand(parent: Command, verb: string, description: string): Command {
  return withTargetOptions(parent.command(verb).description(description).argument('<name>', 'the plugin name, as `plugin list` shows it'));
}

/**
 * Makes one call of the client about the plugin, expects `expected`, and prints the answer's
 * envelope. The call runs once the target is resolved: a missing host or key is told before an
 * unreadable package.
 */
export async function requestPlugin(
  io: IO,
  target: TargetFlags,
  expected: number,
  call: (charta: ChartaClient) => Promise<unknown>,
  options: { warnNotRunnable?: boolean } = {},
): Promise<ExitCode> {
  const client = clientFor(io, target);
  const answer = await client.expect(expected, call);
  printLine(io.stdout, responseEnvelope(true, answer.status, answer.text));
  if (options.warnNotRunnable === true) warnIfNotRunnable(io, answer.json);
  return EXIT.ok;
}

/**
 * After an install or update: a plugin the instance says can never run (`runnable: false`, a
 * Python package of the original tool; docs/plugins.md) gets a warning line on stderr, so the
 * success line on stdout is not mistaken for a plugin that will run.
 */
export function warnIfNotRunnable(io: IO, plugin: unknown): void {
  if (typeof plugin !== 'object' || plugin === null) return;
  const { name, runnable, runnable_reason: reason } = plugin as { name?: unknown; runnable?: unknown; runnable_reason?: unknown };
  if (runnable !== false) return;
  const why = typeof reason === 'string' && reason !== '' ? `: ${reason}` : '';
  io.stderr.write(`charta: warning: plugin ${String(name)} is installed but can never run on this instance${why}\n`);
}
