// charta plugin delete <name> [--force] [--host URL] [--api-key KEY]
// Deletes a plugin; the instance refuses an enabled one (400) unless --force.
import type { Command } from 'commander';
import { bind, optionalString, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { EXIT, printLine, responseEnvelope, UsageError, type ExitCode } from '../../output.ts';
import type { TargetFlags } from '../../target.ts';
import { clientFor, targetFlags, withTargetOptions } from '../../instance.ts';

export interface DeleteOptions {
  name: string;
  force: boolean;
  target: TargetFlags;
}

export function parse({ args, flags }: RawInput): DeleteOptions {
  const name = (optionalString(args[0]) ?? '').trim();
  if (name === '') throw new UsageError('The plugin name is empty');
  return { name, force: flags.force === true, target: targetFlags(flags) };
}

export async function run(io: IO, options: DeleteOptions): Promise<ExitCode> {
  const client = clientFor(io, options.target);
  const answer = await client.expect(204, 'DELETE', [options.name], { query: options.force ? { force: 'true' } : undefined });
  printLine(io.stdout, responseEnvelope(true, answer.status, answer.text));
  return EXIT.ok;
}

export function register(parent: Command, session: Session): Command {
  return withTargetOptions(
    parent
      .command('delete')
      .description('delete a disabled plugin (--force: also an enabled one)')
      .argument('<name>', 'the plugin name, as `plugin list` shows it'),
  )
    .option('--force', 'delete it even if it is enabled')
    .action(bind(session, { parse, run }));
}
