// Coded concepts: bulk upsert for the importers and the starter set, lookups for validation,
// and the indexed searches the terminology search gathers its candidates from.
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Engine } from './db.ts';
import type { Database } from './schema.ts';
import { executeCompiled } from './compiled.ts';

type Db = Kysely<Database>;

export interface ConceptRow {
  system: string;
  code: string;
  display: string;
  /** normalizeText(display): the words the ranking compares with the term's. */
  display_key: string;
  active: number;
  extra: string | null;
  /** Place among the most used concepts of the system (1 = most used); null when unranked. */
  usage_rank: number | null;
}

const COLUMNS = ['system', 'code', 'display', 'display_key', 'active', 'extra', 'usage_rank'] as const;
/** PostgreSQL: prefixes up to this length are lexemes of search_words (migration 003). */
const WORD_PREFIX_LEXEMES = 6;

export interface NewConcept extends ConceptRow {
  code_key: string;
  search_text: string;
  updated_at: number;
}

/** A usage rank the row brings that the stored concept does not have yet. */
const newUsageRank = sql<boolean>`excluded.usage_rank IS NOT NULL AND coalesce(concepts.usage_rank, 0) <> excluded.usage_rank`;

/**
 * Inserts concepts by (system, code). An existing row is updated (`update`, for release files;
 * a row that would not change is left alone) or kept as it is (`keep`, for the starter set, which
 * must never overwrite an imported release: only a usage rank it brings is given to the stored
 * concept). A row without a usage rank never clears the stored one: release files carry none.
 */
export async function upsertConcepts(db: Db, rows: NewConcept[], existing: 'update' | 'keep' = 'update'): Promise<void> {
  if (rows.length === 0) return;
  if (existing === 'keep') {
    await db
      .insertInto('concepts')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['system', 'code'])
          .doUpdateSet({ usage_rank: (eb) => eb.ref('excluded.usage_rank') })
          .where(newUsageRank),
      )
      .execute();
    return;
  }
  await db
    .insertInto('concepts')
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(['system', 'code'])
        .doUpdateSet({
          code_key: (eb) => eb.ref('excluded.code_key'),
          display: (eb) => eb.ref('excluded.display'),
          display_key: (eb) => eb.ref('excluded.display_key'),
          search_text: (eb) => eb.ref('excluded.search_text'),
          active: (eb) => eb.ref('excluded.active'),
          extra: (eb) => eb.ref('excluded.extra'),
          usage_rank: sql`coalesce(excluded.usage_rank, concepts.usage_rank)`,
          updated_at: (eb) => eb.ref('excluded.updated_at'),
        })
        .where(
          sql<boolean>`concepts.display <> excluded.display OR concepts.active <> excluded.active OR coalesce(concepts.extra, '') <> coalesce(excluded.extra, '') OR (${newUsageRank})`,
        ),
    )
    .execute();
}

export const findConcept = (db: Db, system: string, code: string) =>
  db.selectFrom('concepts').select(COLUMNS).where('system', '=', system).where('code', '=', code).executeTakeFirst();

export async function countConcepts(db: Db, system: string): Promise<{ total: number; active: number }> {
  const row = await db
    .selectFrom('concepts')
    .select((eb) => [eb.fn.countAll<number>().as('total'), eb.fn.sum<number>('active').as('active')])
    .where('system', '=', system)
    .executeTakeFirstOrThrow();
  return { total: Number(row.total), active: Number(row.active ?? 0) };
}

/** A LIKE pattern for `word` at the start of a word of `' ' || search_text`. */
const wordPattern = (word: string) => `% ${word}%`;

/**
 * The rows of `range` (a bounded, ordered read of concepts with their search_text) that match
 * every LIKE pattern of `patterns`, in the order of `orderBy`, at most `limit`.
 */
function keepingEveryWord(
  db: Db,
  range: SelectQueryBuilder<Database, 'concepts', ConceptRow & { search_text: string }>,
  patterns: readonly unknown[],
  orderBy: 'display_key' | 'usage_rank',
  limit: unknown,
) {
  let query = db.selectFrom(range.as('r')).select(COLUMNS);
  for (const pattern of patterns) query = query.where(sql<boolean>`(' ' || r.search_text) LIKE ${pattern}`);
  return query.orderBy(orderBy).limit(limit as number);
}

/**
 * The values each search takes, in the order its query reads them (the runners below compile each
 * query once per shape with placeholders in their place: storage/compiled.ts).
 */
export const conceptSearchValues = {
  byCodeKey: (systems: readonly string[], codeKey: string, limit: number): unknown[] => [codeKey, limit, ...systems],
  byDisplayStart: (system: string, first: string, rest: readonly string[], limit: number, scan: number): unknown[] => [
    system,
    first,
    `${first}\u{10FFFF}`,
    scan,
    limit,
    ...rest.map(wordPattern),
  ],
  byUsageRank: (system: string, words: readonly string[], limit: number, scan: number): unknown[] => [system, scan, limit, ...words.map(wordPattern)],
  byWords: (engine: Engine, system: string, words: readonly string[], limit: number): unknown[] => {
    // SQLite: words hold only letters and digits (normalizeText), so quoting them makes each a
    // plain prefix term. PostgreSQL: search_words holds every prefix of up to 6 characters as a
    // lexeme (migration 003): a word that short is an exact lexeme. A longer word alone matches
    // the lexemes it starts (`'unspecified':*`); among other words it is looked up by its first 6
    // characters, an exact lexeme, and the row must then start a word with all of it (a LIKE
    // pattern, as keepingEveryWord's). Both read as "a word starts with it". A prefix match among
    // other words made PostgreSQL OR its lexemes' posting lists into a bitmap before AND-ing the
    // others: 12–18 ms for a common word, where exact lexemes skip through each other's lists;
    // alone, the prefix match lets the planner walk the system's concepts until enough match
    // (docs/performance.md, "Autocomplete at one connection").
    if (engine === 'sqlite') return [system, words.map((w) => `"${w}"*`).join(' AND '), limit];
    if (words.length === 1) return [system, words.map((w) => (w.length <= WORD_PREFIX_LEXEMES ? `'${w}'` : `'${w}':*`)).join(' & '), limit];
    const long = words.filter((w) => w.length > WORD_PREFIX_LEXEMES);
    return [system, words.map((w) => `'${w.slice(0, WORD_PREFIX_LEXEMES)}'`).join(' & '), limit, ...long.map(wordPattern)];
  },
};

/** The searches as compilable queries of their values (conceptSearchValues; tests read their plans), each with a runner below. */
export const conceptSearchQueries = {
  /** Active concepts whose code is exactly `codeKey` (upper case, letters and digits only). */
  byCodeKey: (db: Db, [codeKey, limit, ...systems]: readonly unknown[]) =>
    db
      .selectFrom('concepts')
      .select(COLUMNS)
      .where('system', 'in', systems as string[])
      .where('code_key', '=', codeKey as string)
      .where('active', '=', 1)
      .limit(limit as number),

  /**
   * Active concepts whose display starts with `first` (a normalised word prefix), in display
   * order; at most `scan` rows of that range are looked at, of which those containing every
   * word of `rest` (as word prefixes) are kept.
   */
  byDisplayStart: (db: Db, [system, from, to, scan, limit, ...patterns]: readonly unknown[]) => {
    const range = db
      .selectFrom('concepts')
      .select([...COLUMNS, 'search_text'])
      .where('system', '=', system as string)
      .where('display_key', '>=', from as string)
      .where('display_key', '<', to as string)
      .where('active', '=', 1)
      .orderBy('display_key')
      .limit(scan as number);
    return keepingEveryWord(db, range, patterns, 'display_key', limit);
  },

  /**
   * Active concepts with a usage rank (the partial index concepts_usage_rank, migration 020), in
   * rank order: at most `scan` of them are looked at, of which those containing every word of
   * `words` (as word prefixes) are kept.
   */
  byUsageRank: (db: Db, [system, scan, limit, ...patterns]: readonly unknown[]) => {
    const range = db
      .selectFrom('concepts')
      .select([...COLUMNS, 'search_text'])
      .where('system', '=', system as string)
      .where('usage_rank', 'is not', null)
      .where('active', '=', 1)
      .orderBy('usage_rank')
      .limit(scan as number);
    return keepingEveryWord(db, range, patterns, 'usage_rank', limit);
  },

  /**
   * Active concepts containing every word (each a prefix of a word of the code or display), from
   * the full-text index; not ordered beyond what the index gives. On PostgreSQL `patterns` are
   * the words longer than the index's prefixes, each a word the row must have a word start with.
   */
  byWords: (engine: Engine, [system, match, limit, ...patterns]: readonly unknown[]) =>
    engine === 'sqlite'
      ? sql<ConceptRow>`
        SELECT c.system, c.code, c.display, c.display_key, c.active, c.extra, c.usage_rank
        FROM concepts_fts f JOIN concepts c ON c.id = f.rowid
        WHERE concepts_fts MATCH ${match} AND c.system = ${system} AND c.active = 1
        LIMIT ${limit}`
      : sql<ConceptRow>`
        SELECT system, code, display, display_key, active, extra, usage_rank FROM concepts
        WHERE search_words @@ to_tsquery('simple', ${match}) AND system = ${system} AND active = 1${sql.join(
          patterns.map((pattern) => sql` AND (' ' || search_text) LIKE ${pattern}`),
          sql``,
        )}
        LIMIT ${limit}`,
};

/** The first `limit` active concepts of `systems` in display order (the default page of a short list). */
export const firstConcepts = (db: Db, systems: readonly string[], limit: number): Promise<ConceptRow[]> =>
  db
    .selectFrom('concepts')
    .select(COLUMNS)
    .where('system', 'in', systems)
    .where('active', '=', 1)
    .orderBy('display_key')
    .orderBy('code')
    .limit(limit)
    .execute();

export const conceptsByCodeKey = async (db: Db, systems: readonly string[], codeKey: string, limit: number): Promise<ConceptRow[]> =>
  (
    await executeCompiled(db, `concepts by code key in ${systems.length} systems`, conceptSearchValues.byCodeKey(systems, codeKey, limit), (p) =>
      conceptSearchQueries.byCodeKey(db, p),
    )
  ).rows;

export const conceptsByDisplayStart = async (
  db: Db,
  system: string,
  first: string,
  rest: readonly string[],
  limit: number,
  scan: number,
): Promise<ConceptRow[]> =>
  (
    await executeCompiled(
      db,
      `concepts by display start and ${rest.length} more words`,
      conceptSearchValues.byDisplayStart(system, first, rest, limit, scan),
      (p) => conceptSearchQueries.byDisplayStart(db, p),
    )
  ).rows;

export const conceptsByUsageRank = async (db: Db, system: string, words: readonly string[], limit: number, scan: number): Promise<ConceptRow[]> =>
  (
    await executeCompiled(db, `concepts by usage rank and ${words.length} words`, conceptSearchValues.byUsageRank(system, words, limit, scan), (p) =>
      conceptSearchQueries.byUsageRank(db, p),
    )
  ).rows;

export async function conceptsByWords(db: Db, engine: Engine, system: string, words: readonly string[], limit: number): Promise<ConceptRow[]> {
  const values = conceptSearchValues.byWords(engine, system, words, limit);
  // Its shape: the number of LIKE patterns of the words longer than the index's prefixes (PostgreSQL).
  const shape = `concepts by words and ${values.length - 3} patterns`;
  // A raw query compiles against a database: given here, so it compiles as the others do.
  const compilable = (q: Db, p: readonly unknown[]) => ({ compile: () => conceptSearchQueries.byWords(engine, p).compile(q) });
  return withWordIndex(db, engine, async (q) => (await executeCompiled(q, shape, values, (p) => compilable(q, p))).rows);
}

/**
 * Runs `work` so that PostgreSQL answers the word search from its GIN index. Its planner cannot
 * estimate prefix matches (it assumes a fixed share of the table) and, given a LIMIT, prefers to
 * scan the table until enough rows turn up, which takes the whole table when few or none match;
 * inside this transaction it may not scan the table.
 */
export function withWordIndex<T>(db: Db, engine: Engine, work: (q: Db) => Promise<T>): Promise<T> {
  if (engine === 'sqlite') return work(db);
  return db.transaction().execute(async (trx) => {
    await sql`SET LOCAL enable_seqscan = off`.execute(trx);
    return work(trx);
  });
}
