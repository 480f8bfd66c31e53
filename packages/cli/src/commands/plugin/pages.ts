// What `charta plugin list` and `charta plugin dead-letters list` share (docs/cli.md): every page of
// an instance's list, fetched 100 at a time, following its `next` link until there is none. Only
// the link's limit and offset are used, on the host charta was given, so the key never goes to
// another address than that.
import type { ChartaClient, PageOptions, Paginated } from '@charta/client';
import { Failure } from '../../output.ts';
import { InstanceFailure, type InstanceClient } from '../../instance.ts';

export const PAGE_SIZE = 100;
/** A guard against an instance whose `next` links never end. */
const MAX_PAGES = 10_000;

interface Page {
  next?: unknown;
  results?: unknown;
}

/** Every result of the list `page` asks for, a page at a time. */
export async function allPages(
  client: InstanceClient,
  fetchPage: (charta: ChartaClient, options: PageOptions) => Promise<Paginated<unknown>>,
): Promise<unknown[]> {
  const results: unknown[] = [];
  let query: Record<string, string> | undefined = { limit: String(PAGE_SIZE) };
  for (let pages = 0; query !== undefined; pages++) {
    if (pages >= MAX_PAGES) throw new Failure(`The instance's list did not end after ${MAX_PAGES} pages`);
    const asked: PageOptions = { limit: Number(query.limit), ...(query.offset !== undefined ? { offset: Number(query.offset) } : {}) };
    const answer = await client.expect(200, (charta) => fetchPage(charta, asked));
    const page = answer.json as Page | undefined;
    if (typeof page !== 'object' || page === null || !Array.isArray(page.results)) throw new InstanceFailure(answer);
    results.push(...page.results);
    query = nextQuery(page.next, query);
  }
  return results;
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
