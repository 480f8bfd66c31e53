// charta plugin reads <name> [--patient KEY] [--host URL] [--api-key KEY]
// What the plugin's handlers read of the record, newest first, in one line (every page of the
// instance's list, from its audit trail: docs/plugins.md, "Reading the record").
import type { Command } from 'commander';
import { bind, optionalString, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { EXIT, UsageError, envelope, printLine, type ExitCode } from '../../output.ts';
import type { TargetFlags } from '../../target.ts';
import { clientFor, targetFlags } from '../../instance.ts';
import { namedPluginCommand, pluginNameArgument } from './named-plugin.ts';
import { allPages } from './pages.ts';

export interface ReadsOptions {
  name: string;
  patient?: string | undefined;
  target: TargetFlags;
}

const PATIENT_KEY = /^[0-9a-f]{32}$/;

export function parse({ args, flags }: RawInput): ReadsOptions {
  const patient = optionalString(flags.patient);
  if (patient !== undefined && !PATIENT_KEY.test(patient))
    throw new UsageError(`Invalid --patient '${patient.slice(0, 64)}': expected a patient key (32 lowercase hexadecimal characters)`);
  return { name: pluginNameArgument(args), patient, target: targetFlags(flags) };
}

export async function run(io: IO, options: ReadsOptions): Promise<ExitCode> {
  const results = await allPages(clientFor(io, options.target), (charta, page) => charta.plugins.reads(options.name, { ...page, patientKey: options.patient }));
  printLine(io.stdout, envelope(true, { count: results.length, results }, { status_code: 200 }));
  return EXIT.ok;
}

export function register(parent: Command, session: Session): Command {
  return namedPluginCommand(parent, 'reads', "list what the plugin's handlers read of the record, newest first")
    .option('--patient <key>', "only the reads of this patient's record")
    .action(bind(session, { parse, run }));
}
