// charta plugin install <path> [--host URL] [--api-key KEY] [--disable] [--secret KEY=VALUE]… [--grant NAME]…
// A project directory is built first (`charta plugin build`: dist/<slug>-<version>.tar.gz); a
// .whl or .tar.gz is uploaded as is (its kind is judged by the instance). A plugin of that name
// already installed (400 `plugin_exists`) is updated instead, as the original tool does: the
// package's name comes from extract-metadata, then the package is PATCHed onto it and that
// update's answer is the line. The line names the package uploaded (`package`). Secrets and
// grants go with the package as repeated `secret` and `grant` fields, on the install and on the
// update alike (an update adds the grants to those the plugin has). A plugin the answer says can
// never run (`runnable: false`) gets a warning line on stderr (docs/cli.md).
import type { Command } from 'commander';
import { bind, optionalString, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { EXIT, envelope, printLine, responseEnvelope, type ExitCode } from '../../output.ts';
import type { TargetFlags } from '../../target.ts';
import { buildProject } from '../../packaging/index.ts';
import {
  InstanceFailure,
  checkProjectOrPackage,
  clientFor,
  collect,
  collected,
  readPackage,
  secretFields,
  targetFlags,
  uploadOf,
  withTargetOptions,
} from '../../instance.ts';
import { warnIfNotRunnable } from './named-plugin.ts';

export interface InstallOptions {
  source: { kind: 'project' | 'package'; path: string };
  enabled: boolean;
  /** The secrets to send, [KEY, VALUE] in order (each a `secret` field: base64 of `KEY=VALUE`). */
  secrets: Array<[string, string]>;
  /** The grants to give (docs/plugins.md, "Grants"); the instance refuses a name it does not know. */
  grants: string[];
  target: TargetFlags;
}

export function parse({ args, flags }: RawInput): InstallOptions {
  return {
    source: checkProjectOrPackage(optionalString(args[0]) ?? ''),
    enabled: flags.disable !== true,
    secrets: secretFields(flags.secret),
    grants: collected(flags.grant),
    target: targetFlags(flags),
  };
}

export async function run(io: IO, options: InstallOptions): Promise<ExitCode> {
  const client = clientFor(io, options.target);
  const packagePath = options.source.kind === 'project' ? (await buildProject(options.source.path)).file : options.source.path;
  const file = uploadOf(readPackage(packagePath));
  const change = { isEnabled: options.enabled, secrets: options.secrets, grants: options.grants };
  const installed = await client.attempt((charta) => charta.plugins.install(file, change));
  if (installed.status === 201) {
    printLine(io.stdout, envelope(true, 'Package successfully uploaded', { status_code: 201, plugin: installed.json, package: packagePath }));
    warnIfNotRunnable(io, installed.json);
    return EXIT.ok;
  }
  // 400 under /core/api/v1/plugins/ (where charta sends it); 409 is how /plugin-io/plugins/ says it.
  if (!((installed.status === 400 || installed.status === 409) && problemCode(installed.json) === 'plugin_exists')) throw new InstanceFailure(installed);

  const metadata = await client.expect(200, (charta) => charta.plugins.extractMetadata(file));
  const name = (metadata.json as { name?: unknown } | undefined)?.name;
  if (typeof name !== 'string' || name === '') throw new InstanceFailure(metadata);
  const updated = await client.expect(200, (charta) => charta.plugins.update(name, { ...change, package: file }));
  printLine(io.stdout, responseEnvelope(true, updated.status, updated.text, { package: packagePath }));
  warnIfNotRunnable(io, updated.json);
  return EXIT.ok;
}

function problemCode(body: unknown): unknown {
  return typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined;
}

export function register(parent: Command, session: Session): Command {
  return withTargetOptions(
    parent
      .command('install')
      .description('build a plugin project directory, or take a .whl / .tar.gz, and upload it; a plugin already installed is updated')
      .argument('<path>', 'a project directory or a package file'),
  )
    .option('--disable', 'install it disabled (default: enabled)')
    .option('--secret <KEY=VALUE>', "set a secret the plugin's manifest declares (repeatable; never printed)", collect)
    .option('--grant <name>', 'give the plugin a grant, e.g. effects:instance (repeatable)', collect)
    .action(bind(session, { parse, run }));
}
