// charta plugin list [--host URL] [--api-key KEY]
// Every installed plugin, in one line: pages of 100 are fetched, following the instance's
// `next` link until there is none. Only the link's limit and offset are used, on the host
// charta was given, so the key never goes to another address than that.
import type { Command } from 'commander';
import { bind, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { EXIT, envelope, Failure, printLine, type ExitCode } from '../../output.ts';
import type { TargetFlags } from '../../target.ts';
import { clientFor, InstanceFailure, targetFlags, withTargetOptions } from '../../instance.ts';

export const PAGE_SIZE = 100;
/** A guard against an instance whose `next` links never end. */
const MAX_PAGES = 10_000;

export interface ListOptions {
  target: TargetFlags;
}

export function parse({ flags }: RawInput): ListOptions {
  return { target: targetFlags(flags) };
}

interface Page {
  next?: unknown;
  results?: unknown;
}

export async function run(io: IO, options: ListOptions): Promise<ExitCode> {
  const client = clientFor(io, options.target);
  const results: unknown[] = [];
  let query: Record<string, string> | undefined = { limit: String(PAGE_SIZE) };
  for (let pages = 0; query !== undefined; pages++) {
    if (pages >= MAX_PAGES) throw new Failure(`The instance's list did not end after ${MAX_PAGES} pages`);
    const answer = await client.expect(200, 'GET', [], { query });
    const page = answer.json as Page | undefined;
    if (typeof page !== 'object' || page === null || !Array.isArray(page.results)) throw new InstanceFailure(answer);
    results.push(...page.results);
    query = nextQuery(page.next, query);
  }
  printLine(io.stdout, envelope(true, { count: results.length, results }, { status_code: 200 }));
  return EXIT.ok;
}

/** limit and offset of the `next` link; undefined when there is none or it would not advance. */
function nextQuery(next: unknown, current: Record<string, string>): Record<string, string> | undefined {
  if (typeof next !== 'string' || next === '') return undefined;
  let params: URLSearchParams;
  try {
    params = new URL(next, 'http://placeholder').searchParams;
  } catch {
    return undefined;
  }
  const offset = params.get('offset');
  if (offset === null || !/^\d+$/.test(offset) || Number(offset) <= Number(current.offset ?? 0)) return undefined;
  return { limit: params.get('limit') ?? String(PAGE_SIZE), offset };
}

export function register(parent: Command, session: Session): Command {
  return withTargetOptions(parent.command('list').description('list the installed plugins')).action(bind(session, { parse, run }));
}
