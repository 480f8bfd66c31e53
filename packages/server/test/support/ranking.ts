// The ranking searches of test/fixtures/ranking-searches.json, run through the autocomplete
// endpoint the console calls (GET …/fields/{field}/autocomplete/?search_term=…&limit=20) on a
// staged command of each search's kind: where each search's expected concept comes in the
// answer. Shared by test/terminology-ranking.test.ts and the bench's ranking figure
// (bench/lib/autocomplete.ts); the rules they measure are in docs/api.md, "How a search matches
// and ranks".
import fs from 'node:fs';
import { request, type Reply } from './harness.ts';

export interface RankingSearch {
  /** What a clinician types. */
  term: string;
  /** The command kind (schema key) and its AutocompleteField searched. */
  command: string;
  field: string;
  /** labOrder.tests: the lab partner whose catalogue is searched (picked first, by name). */
  partner?: string;
  /** The concept meant: a coding of the option (free text: system UNSTRUCTURED, code = the text). */
  system: string;
  code: string;
}

export const RANKING_SEARCHES_FILE = new URL('../fixtures/ranking-searches.json', import.meta.url);

export function readRankingSearches(): RankingSearch[] {
  return (JSON.parse(fs.readFileSync(RANKING_SEARCHES_FILE, 'utf8')) as { searches: RankingSearch[] }).searches;
}

/** The page the console asks for (packages/console/src/editor/picker.tsx). */
export const RANKING_PAGE = 20;

export interface RankingResult {
  search: RankingSearch;
  /** 1-based place of the expected concept in the answer; null when it is not in the page. */
  rank: number | null;
  /** The first three options, as "code display". */
  top: string[];
}

/** An instance to search: its URL, a bearer token, and a note to stage the commands in. */
export interface RankingTarget {
  url: string;
  token: string;
  noteKey: string;
}

interface Option {
  text: string;
  value: string;
}

const COMMANDS = '/core/api/v1/commands';

const codingsOf = (option: Option) => (JSON.parse(option.value) as { extra?: { coding?: Array<{ system: string; code: string }> } }).extra?.coding ?? [];

function ok(reply: Reply, status: number, what: string): Reply {
  if (reply.status !== status) throw new Error(`${what}: ${reply.status} ${reply.text.slice(0, 300)}`);
  return reply;
}

/** Runs every search; the staged commands (one per kind and lab partner) are left in the note. */
export async function runRankingSearches(target: RankingTarget, searches: readonly RankingSearch[]): Promise<RankingResult[]> {
  const call = (method: string, path: string, body?: unknown) => request(target.url, method, path, body === undefined ? {} : { body }, target.token);
  const autocomplete = async (uuid: string, field: string, term: string): Promise<Option[]> =>
    ok(
      await call('GET', `${COMMANDS}/${uuid}/fields/${field}/autocomplete/?search_term=${encodeURIComponent(term)}&limit=${RANKING_PAGE}`),
      200,
      `autocomplete ${field} ${JSON.stringify(term)}`,
    ).json as Option[];
  const staged = new Map<string, string>();
  const stage = async (search: RankingSearch): Promise<string> => {
    const key = `${search.command}\n${search.partner ?? ''}`;
    const known = staged.get(key);
    if (known !== undefined) return known;
    const uuid = ok(await call('POST', `${COMMANDS}/`, { schemaKey: search.command, noteKey: target.noteKey, values: {} }), 201, `staging ${search.command}`)
      .json.uuid as string;
    if (search.partner !== undefined) {
      const partner = (await autocomplete(uuid, 'lab_partner', search.partner)).find((o) => o.text === search.partner);
      if (partner === undefined) throw new Error(`no lab partner named ${JSON.stringify(search.partner)}`);
      ok(await call('PATCH', `${COMMANDS}/${uuid}/`, { values: { lab_partner: partner.value } }), 200, `picking ${search.partner}`);
    }
    staged.set(key, uuid);
    return uuid;
  };
  const results: RankingResult[] = [];
  for (const search of searches) {
    const options = await autocomplete(await stage(search), search.field, search.term);
    const at = options.findIndex((o) => codingsOf(o).some((c) => c.system === search.system && c.code === search.code));
    results.push({
      search,
      rank: at < 0 ? null : at + 1,
      top: options.slice(0, 3).map((o) => `${codingsOf(o)[0]?.code ?? '?'} ${o.text}`),
    });
  }
  return results;
}

export interface RankingFigure {
  searches: number;
  top1: number;
  top3: number;
}

/** How many searches have their expected concept first, and in the first three. */
export function rankingFigure(results: readonly RankingResult[]): RankingFigure {
  return {
    searches: results.length,
    top1: results.filter((r) => r.rank === 1).length,
    top3: results.filter((r) => r.rank !== null && r.rank <= 3).length,
  };
}
