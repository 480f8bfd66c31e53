// charta plugin update <name> [--package FILE] [--enable | --disable] [--secret KEY=VALUE]… [--grant NAME]… [--revoke NAME]…
//   [--host URL] [--api-key KEY]
// PATCHes the plugin: multipart when a package is given, form-encoded `is_enabled`, `secret`,
// `grant` and `revoke` fields when only those are, an empty PATCH with none (as the original tool).
import type { Command } from 'commander';
import { bind, optionalString, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { UsageError, type ExitCode } from '../../output.ts';
import type { TargetFlags } from '../../target.ts';
import type { PluginChange } from '@charta/client';
import { checkPackagePath, collect, collected, readPackage, secretFields, targetFlags, uploadOf } from '../../instance.ts';
import { namedPluginCommand, pluginNameArgument, requestPlugin } from './named-plugin.ts';

export interface UpdateOptions {
  name: string;
  package?: string | undefined;
  /** undefined: leave the flag as it is. */
  enabled?: boolean | undefined;
  /** The secrets to send, [KEY, VALUE] in order (each a `secret` field: base64 of `KEY=VALUE`). */
  secrets: Array<[string, string]>;
  /** Grants to give and to take back (docs/plugins.md, "Grants"). */
  grants: string[];
  revokes: string[];
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
    secrets: secretFields(flags.secret),
    grants: collected(flags.grant),
    revokes: collected(flags.revoke),
    target: targetFlags(flags),
  };
}

export function run(io: IO, options: UpdateOptions): Promise<ExitCode> {
  return requestPlugin(io, options.target, 200, (charta) => charta.plugins.update(options.name, change(options)), { warnNotRunnable: true });
}

/** The client sends it multipart with the package, form-encoded with only the flag, secrets and/or grants, empty with none. */
function change(options: UpdateOptions): PluginChange {
  return {
    ...(options.package !== undefined ? { package: uploadOf(readPackage(options.package)) } : {}),
    ...(options.enabled !== undefined ? { isEnabled: options.enabled } : {}),
    secrets: options.secrets,
    grants: options.grants,
    revokes: options.revokes,
  };
}

export function register(parent: Command, session: Session): Command {
  return namedPluginCommand(parent, 'update', 'replace the package of an installed plugin, enable or disable it, set its secrets, give or take back grants')
    .option('--package <file>', 'a new package (.whl or .tar.gz) of the same plugin')
    .option('--enable', 'enable the plugin')
    .option('--disable', 'disable the plugin')
    .option('--secret <KEY=VALUE>', "set a secret the plugin's manifest declares (repeatable; never printed)", collect)
    .option('--grant <name>', 'give the plugin a grant, e.g. effects:instance (repeatable)', collect)
    .option('--revoke <name>', 'take a grant back from the plugin (repeatable)', collect)
    .action(bind(session, { parse, run }));
}
