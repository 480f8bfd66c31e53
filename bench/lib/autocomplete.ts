// The autocomplete scenarios of `npm run bench`, over a generated ICD-10-like terminology of
// BENCH_CONCEPTS concepts (lib/terminology.ts, stored by the server child with storeConcepts):
//  * autocomplete-word: one word prefix of 3–6 letters of a vocabulary word drawn with the
//    vocabulary's own Zipf weights, so common and rare words both occur;
//  * autocomplete-two-words: two such prefixes;
//  * autocomplete-code: the exact code of an existing concept, in mixed case, with or without its dot;
// all through GET …/commands/{uuid}/fields/diagnose/autocomplete/ on a staged diagnose command.
// Before measuring, a sample of the answers is checked against a brute-force count in the server
// child, and the ranking figure is taken (rankingFigure: the common clinical searches of the
// server's ranking test, each expected concept's place in its field's answer); after, single
// requests with the worst terms are timed one at a time (worstCases).
import type autocannon from 'autocannon';
import { CodeSystems } from '@charta/api/constants';
import { codeKey, matchesAllWords, normalizeText, parseSearchTerm } from '../../packages/server/src/terminology/normalize.ts';
import { rankingFigure as countRanks, readRankingSearches, runRankingSearches, type RankingFigure } from '../../packages/server/test/support/ranking.ts';
import type { Child } from './child.ts';
import { mulberry32 } from './random.ts';
import { vocabulary, zipfSampler } from './terminology.ts';

export const AUTOCOMPLETE_SCENARIOS = ['autocomplete-word', 'autocomplete-two-words', 'autocomplete-code'];

const COMMANDS = '/core/api/v1/commands';
/** Distinct requests per scenario (all connections take them in turn). */
const REQUESTS = 300;
/** Requests per scenario whose answers are checked before measuring. */
const CHECKED = 60;
/** The page size of the endpoint's default (fields.ts DEFAULT_OPTIONS). */
const PAGE = 20;

export interface AutocompleteScenario {
  name: string;
  request: string;
  expect: number;
  probe: { method: 'GET'; path: string };
  requests: autocannon.Request[];
  terms: string[];
}

export const autocompletePath = (uuid: string, term: string) => `${COMMANDS}/${uuid}/fields/diagnose/autocomplete/?search_term=${encodeURIComponent(term)}`;

/** A staged diagnose command to search from (created through the API, as a client would). */
export async function stageDiagnose(url: string, token: string, noteKey: string): Promise<string> {
  const res = await fetch(`${url}${COMMANDS}/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ schemaKey: 'diagnose', noteKey, values: {} }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`staging a diagnose command: ${res.status} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { uuid: string }).uuid;
}

/** The search terms of the three scenarios: the same on every run and engine. */
export function buildTerms(sampleCodes: string[]): Record<string, string[]> {
  const rnd = mulberry32(1_2026);
  const words = vocabulary();
  const draw = zipfSampler(words.length, rnd);
  const prefix = (): string => {
    let w: string;
    do w = words[draw()]!;
    while (w.length < 3);
    const longest = Math.min(6, w.length);
    return w.slice(0, 3 + Math.floor(rnd() * (longest - 3 + 1)));
  };
  const word = Array.from({ length: REQUESTS }, prefix);
  const twoWords = Array.from({ length: REQUESTS }, () => {
    const a = prefix();
    let b: string;
    do b = prefix();
    while (b === a);
    return `${a} ${b}`;
  });
  const code = Array.from({ length: REQUESTS }, () => {
    const c = sampleCodes[Math.floor(rnd() * sampleCodes.length)]!;
    const cased = [...c].map((ch) => (rnd() < 0.5 ? ch.toLowerCase() : ch.toUpperCase())).join('');
    return rnd() < 0.5 ? cased : cased.replace('.', '');
  });
  return { 'autocomplete-word': word, 'autocomplete-two-words': twoWords, 'autocomplete-code': code };
}

/**
 * One shared counter across connections: each request takes the next term. A fixed list per
 * connection would keep the 50 connections in step, so the server would see 50 copies of the
 * same term at once and the tail would be the slowest term × 50 rather than a mix.
 */
function rotate(paths: string[]): autocannon.Request[] {
  let next = 0;
  return [{ method: 'GET', path: paths[0]!, setupRequest: (req: any) => ({ ...req, path: paths[next++ % paths.length] }) }];
}

export function autocompleteScenarios(uuid: string, terms: Record<string, string[]>): AutocompleteScenario[] {
  const describe: Record<string, string> = {
    'autocomplete-word': 'one word prefix of 3–6 letters of a Zipf-drawn vocabulary word, e.g.',
    'autocomplete-two-words': 'two such prefixes, e.g.',
    'autocomplete-code': 'the exact code of an existing concept, mixed case, with or without the dot, e.g.',
  };
  return AUTOCOMPLETE_SCENARIOS.map((name) => {
    const list = terms[name]!;
    const paths = list.map((t) => autocompletePath(uuid, t));
    return {
      name,
      request: `GET ${COMMANDS}/{uuid}/fields/diagnose/autocomplete/?search_term=… (${list.length} terms: ${describe[name]} ${list
        .slice(0, 4)
        .map((t) => JSON.stringify(t))
        .join(', ')})`,
      expect: 200,
      probe: { method: 'GET', path: paths[0]! },
      requests: rotate(paths),
      terms: list,
    };
  });
}

interface Option {
  text: string;
  value: string;
}

async function search(url: string, token: string, uuid: string, term: string): Promise<{ status: number; options: Option[]; ms: number; body: string }> {
  const started = performance.now();
  const res = await fetch(url + autocompletePath(uuid, term), { headers: { authorization: `Bearer ${token}` } });
  const body = await res.text();
  const ms = performance.now() - started;
  return { status: res.status, options: res.status === 200 ? (JSON.parse(body) as Option[]) : [], ms, body };
}

const codeOf = (o: Option) => (JSON.parse(o.value) as { value: string }).value;

export interface MatchStats {
  /** Terms of the scenario (word scenarios: how many concepts each matches, by brute force). */
  terms: number;
  none: number;
  p50: number;
  p90: number;
  max: number;
  /** Terms matching at least a page (the answer is a full page). */
  fullPage: number;
}

export interface CheckResult {
  scenario: string;
  engine: string;
  checked: number;
  failures: string[];
  /** Word scenarios: what the terms match (every term of the scenario, not only the checked ones). */
  matches?: MatchStats;
}

function stats(counts: number[]): MatchStats {
  const sorted = [...counts].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return {
    terms: counts.length,
    none: counts.filter((n) => n === 0).length,
    p50: at(0.5),
    p90: at(0.9),
    max: sorted[sorted.length - 1]!,
    fullPage: counts.filter((n) => n >= PAGE).length,
  };
}

/**
 * Checks CHECKED answers of a scenario. Word searches: as many options as the brute-force count
 * allows (a full page when it matches PAGE or more, none when it matches nothing), each
 * containing every word. Code searches: the exact code first.
 */
export async function checkAnswers(engine: string, url: string, token: string, uuid: string, child: Child, s: AutocompleteScenario): Promise<CheckResult> {
  const failures: string[] = [];
  const sample = s.terms.slice(0, CHECKED);
  let matches: MatchStats | undefined;
  let counts: number[] = [];
  if (s.name !== 'autocomplete-code') {
    const all = await child.call<number[]>('matchCounts', { terms: s.terms });
    matches = stats(all);
    counts = all.slice(0, CHECKED);
  }
  for (const [i, term] of sample.entries()) {
    const r = await search(url, token, uuid, term);
    if (r.status !== 200) {
      failures.push(`${JSON.stringify(term)}: status ${r.status} ${r.body.slice(0, 200)}`);
      continue;
    }
    if (s.name === 'autocomplete-code') {
      const first = r.options[0];
      if (first === undefined || codeKey(codeOf(first)) !== codeKey(term))
        failures.push(`${JSON.stringify(term)}: first option ${first ? codeOf(first) : 'none'}, expected the code ${codeKey(term)}`);
      continue;
    }
    const { words } = parseSearchTerm(term);
    const expected = Math.min(PAGE, counts[i]!);
    if (r.options.length !== expected)
      failures.push(`${JSON.stringify(term)}: ${r.options.length} options, expected ${expected} (${counts[i]} concepts match)`);
    const wrong = r.options.filter((o) => !matchesAllWords(`${normalizeText(codeOf(o))} ${normalizeText(o.text)}`, words));
    if (wrong.length > 0) failures.push(`${JSON.stringify(term)}: ${wrong.length} options without every word, e.g. ${JSON.stringify(wrong[0]!.text)}`);
  }
  return { scenario: s.name, engine, checked: sample.length, failures, ...(matches ? { matches } : {}) };
}

/** Terms expected to cost the most, with what makes each hard. */
export const WORST_TERMS: Array<{ term: string; why: string }> = [
  { term: 'a', why: 'one letter: starts a word of about a quarter of the concepts' },
  { term: 'unspecified', why: 'the commonest word (in ~45 % of displays), never first' },
  { term: 'unsp', why: 'a prefix of it' },
  { term: 'zzzq', why: 'a prefix that matches nothing' },
  { term: 'left right', why: 'two common words, never first, together in few displays' },
  { term: 'unspecified zzzq', why: 'the commonest word and one that matches nothing' },
  { term: 'a zzzq', why: 'one letter and a word that matches nothing' },
  { term: 'of with and', why: 'three of the commonest short words' },
];

export interface WorstRow {
  engine: string;
  term: string;
  why: string;
  /** Concepts the term matches (brute force) and options answered. */
  matches: number;
  options: number;
  requests: number;
  p50: number;
  p99: number;
  max: number;
}

/** Each worst term, `requests` times one after the other (after 5 unrecorded), on an otherwise idle server. */
export async function worstCases(engine: string, url: string, token: string, uuid: string, child: Child, requests: number): Promise<WorstRow[]> {
  const counts = await child.call<number[]>('matchCounts', { terms: WORST_TERMS.map((w) => w.term) });
  const rows: WorstRow[] = [];
  for (const [i, { term, why }] of WORST_TERMS.entries()) {
    let options = 0;
    for (let k = 0; k < 5; k++) {
      const r = await search(url, token, uuid, term);
      if (r.status !== 200) throw new Error(`autocomplete ${JSON.stringify(term)}: ${r.status} ${r.body.slice(0, 200)}`);
      options = r.options.length;
    }
    const ms: number[] = [];
    for (let k = 0; k < requests; k++) ms.push((await search(url, token, uuid, term)).ms);
    ms.sort((a, b) => a - b);
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!;
    rows.push({ engine, term, why, matches: counts[i]!, options, requests, p50: at(0.5), p99: at(0.99), max: ms[ms.length - 1]! });
  }
  return rows;
}

export interface RankingRow extends RankingFigure {
  engine: string;
  /** The ICD-10-CM searches alone: those that compete with the generated concepts. */
  icd10: RankingFigure;
  /** Searches whose expected concept is not first: its place (null: not in the page) and the top 3. */
  misses: Array<{ term: string; field: string; code: string; rank: number | null; top: string[] }>;
}

/**
 * The ranking figure: the searches of packages/server/test/fixtures/ranking-searches.json (the
 * server's ranking test) through the autocomplete endpoint of the loaded instance, each on a
 * staged command of its kind in `noteKey`: how many have their expected concept first and in the
 * top 3. The expected ICD-10-CM concepts are the starter set's, stored among the generated ones
 * (charta-server.ts, loadTerminology); the other systems hold only the starter set.
 */
export async function rankingFigure(engine: string, url: string, token: string, noteKey: string): Promise<RankingRow> {
  const results = await runRankingSearches({ url, token, noteKey }, readRankingSearches());
  return {
    engine,
    ...countRanks(results),
    icd10: countRanks(results.filter((r) => r.search.system === CodeSystems.ICD10)),
    misses: results
      .filter((r) => r.rank !== 1)
      .map((r) => ({ term: r.search.term, field: `${r.search.command}.${r.search.field}`, code: r.search.code, rank: r.rank, top: r.top })),
  };
}
