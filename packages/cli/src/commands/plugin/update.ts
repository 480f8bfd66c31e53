// charta plugin update <name> [--package FILE] [--enable | --disable] [--host URL] [--api-key KEY]
// PATCHes the plugin: multipart when a package is given, form-encoded `is_enabled` when only a
// flag is, an empty PATCH with neither (as the original tool).
import type { Command } from 'commander';
import { bind, optionalString, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { EXIT, printLine, responseEnvelope, UsageError, type ExitCode } from '../../output.ts';
import type { TargetFlags } from '../../target.ts';
import { checkPackagePath, clientFor, pythonBool, readPackage, targetFlags, withTargetOptions, type Body } from '../../instance.ts';

export interface UpdateOptions {
  name: string;
  package?: string | undefined;
  /** undefined: leave the flag as it is. */
  enabled?: boolean | undefined;
  target: TargetFlags;
}

export function parse({ args, flags }: RawInput): UpdateOptions {
  const name = (optionalString(args[0]) ?? '').trim();
  if (name === '') throw new UsageError('The plugin name is empty');
  if (flags.enable === true && flags.disable === true) throw new UsageError('--enable and --disable cannot be used together');
  const pkg = optionalString(flags.package);
  return {
    name,
    package: pkg === undefined ? undefined : checkPackagePath(pkg),
    enabled: flags.enable === true ? true : flags.disable === true ? false : undefined,
    target: targetFlags(flags),
  };
}

export async function run(io: IO, options: UpdateOptions): Promise<ExitCode> {
  const client = clientFor(io, options.target);
  const fields: Record<string, string> = options.enabled === undefined ? {} : { is_enabled: pythonBool(options.enabled) };
  let body: Body;
  if (options.package !== undefined) body = { kind: 'multipart', fields, file: readPackage(options.package) };
  else if (options.enabled !== undefined) body = { kind: 'form', fields };
  else body = { kind: 'empty' };
  const answer = await client.expect(200, 'PATCH', [options.name], { body });
  printLine(io.stdout, responseEnvelope(true, answer.status, answer.text));
  return EXIT.ok;
}

export function register(parent: Command, session: Session): Command {
  return withTargetOptions(
    parent
      .command('update')
      .description('replace the package of an installed plugin and/or enable or disable it')
      .argument('<name>', 'the plugin name, as `plugin list` shows it'),
  )
    .option('--package <file>', 'a new package (.whl or .tar.gz) of the same plugin')
    .option('--enable', 'enable the plugin')
    .option('--disable', 'disable the plugin')
    .action(bind(session, { parse, run }));
}
