// charta audit [--patient KEY] [--note UUID] [--command UUID] [--actor WHO] [--credential CRED]
//              [--action ACTION] [--since ISO] [--until ISO] [--limit N] [--before ID] [--host URL] [--api-key KEY]
// One page of the instance's audit trail, newest first (docs/cli.md, "`charta audit`";
// docs/operations.md, "Audit trail"), as one line: its entries and the cursor of the next page
// (`--before` it to read on). The filters are checked by the instance, which names a bad one (400).
import type { Command } from 'commander';
import type { AuditFilters } from '@charta/api';
import { bind, optionalString, type RawInput, type Session } from '../command.ts';
import type { IO } from '../io.ts';
import { EXIT, UsageError, envelope, printLine, type ExitCode } from '../output.ts';
import type { TargetFlags } from '../target.ts';
import { clientFor, targetFlags, withTargetOptions, InstanceFailure } from '../instance.ts';

export interface AuditOptions {
  filters: AuditFilters;
  target: TargetFlags;
}

/** Flag → the instance's query parameter. */
const FILTERS = {
  patient: 'patient_key',
  note: 'note_key',
  command: 'command',
  actor: 'actor',
  credential: 'credential',
  action: 'action',
  since: 'since',
  until: 'until',
} as const;

const count = (flag: string, text: string | undefined): number | undefined => {
  if (text === undefined) return undefined;
  if (!/^\d{1,9}$/.test(text)) throw new UsageError(`Invalid --${flag} '${text.slice(0, 32)}': expected a whole number`);
  return Number(text);
};

export function parse({ flags }: RawInput): AuditOptions {
  const filters: Record<string, string | number> = {};
  for (const [flag, name] of Object.entries(FILTERS)) {
    const value = optionalString(flags[flag]);
    if (value !== undefined) filters[name] = value;
  }
  const limit = count('limit', optionalString(flags.limit));
  const before = count('before', optionalString(flags.before));
  if (limit !== undefined) filters.limit = limit;
  if (before !== undefined) filters.before = before;
  return { filters: filters as AuditFilters, target: targetFlags(flags) };
}

export async function run(io: IO, options: AuditOptions): Promise<ExitCode> {
  const answer = await clientFor(io, options.target).expect(200, (charta) => charta.audit.list(options.filters));
  const page = answer.json as { next?: unknown; results?: unknown } | undefined;
  if (typeof page !== 'object' || page === null || !Array.isArray(page.results)) throw new InstanceFailure(answer);
  const before = typeof page.next === 'string' ? new URL(page.next).searchParams.get('before') : null;
  printLine(
    io.stdout,
    envelope(true, { count: page.results.length, results: page.results, before: before === null ? null : Number(before) }, { status_code: 200 }),
  );
  return EXIT.ok;
}

export function register(parent: Command, session: Session): Command {
  return withTargetOptions(parent.command('audit').description('list the audit trail, newest first (an API key with the admin scope)'))
    .option('--patient <key>', "only rows about this patient's record")
    .option('--note <uuid>', 'only rows about this note and its commands')
    .option('--command <uuid>', 'only rows about this command')
    .option('--actor <who>', 'only rows by this staff key, or plugin:<name>')
    .option('--credential <credential>', 'only rows made with client:<id>, api_key:<id> or plugin:<name>')
    .option('--action <action>', 'only rows of this action (command.committed, patient.read, plugin.read…)')
    .option('--since <instant>', 'rows at or after this ISO 8601 instant')
    .option('--until <instant>', 'rows before this ISO 8601 instant')
    .option('--limit <n>', 'rows in the page, 1 to 200 (default 50)')
    .option('--before <id>', 'rows older than this id: the `before` of the previous page')
    .action(bind(session, { parse, run }));
}
