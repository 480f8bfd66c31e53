// charta plugin update <name> [--package FILE] [--enable | --disable] [--host URL] [--api-key KEY]
// PATCHes the plugin: multipart when a package is given, form-encoded `is_enabled` when only a
// flag is, an empty PATCH with neither (as the original tool).
import type { Command } from 'commander';
import { bind, optionalString, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { UsageError, type ExitCode } from '../../output.ts';
import type { TargetFlags } from '../../target.ts';
import { checkPackagePath, pythonBool, readPackage, targetFlags, type Body } from '../../instance.ts';
import { namedPluginCommand, pluginNameArgument, requestPlugin } from './named-plugin.ts';

export interface UpdateOptions {
  name: string;
  package?: string | undefined;
  /** undefined: leave the flag as it is. */
  enabled?: boolean | undefined;
  target: TargetFlags;
}

export function parse({ args, flags }: RawInput): UpdateOptions {
  const name = pluginNameArgument(args);
  if (flags.enable === true && flags.disable === true) throw new UsageError('--enable and --disable cannot be used together');
  const pkg = optionalString(flags.package);
  return {
    name,
    package: pkg === undefined ? undefined : checkPackagePath(pkg),
    enabled: flags.enable === true ? true : flags.disable === true ? false : undefined,
    target: targetFlags(flags),
  };
}

export function run(io: IO, options: UpdateOptions): Promise<ExitCode> {
  return requestPlugin(io, options.target, options.name, 200, 'PATCH', () => ({ body: patchBody(options) }));
}

/** Multipart with the package, form-encoded with only the flag, empty with neither. */
function patchBody(options: UpdateOptions): Body {
  const fields: Record<string, string> = options.enabled === undefined ? {} : { is_enabled: pythonBool(options.enabled) };
  if (options.package !== undefined) return { kind: 'multipart', fields, file: readPackage(options.package) };
  if (options.enabled !== undefined) return { kind: 'form', fields };
  return { kind: 'empty' };
}

export function register(parent: Command, session: Session): Command {
  return namedPluginCommand(parent, 'update', 'replace the package of an installed plugin and/or enable or disable it')
    .option('--package <file>', 'a new package (.whl or .tar.gz) of the same plugin')
    .option('--enable', 'enable the plugin')
    .option('--disable', 'disable the plugin')
    .action(bind(session, { parse, run }));
}
