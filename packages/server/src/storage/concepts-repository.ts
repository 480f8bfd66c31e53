// Coded concepts: bulk upsert for the importers and the starter set, lookups for validation,
// and the three indexed searches the terminology search combines.
import { sql, type Kysely } from 'kysely';
import type { Engine } from './db.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface ConceptRow {
  system: string;
  code: string;
  display: string;
  active: number;
  extra: string | null;
}

const COLUMNS = ['system', 'code', 'display', 'active', 'extra'] as const;
/** PostgreSQL: prefixes up to this length are lexemes of search_words (migration 003). */
const WORD_PREFIX_LEXEMES = 6;

export interface NewConcept extends ConceptRow {
  code_key: string;
  display_key: string;
  search_text: string;
  updated_at: number;
}

/**
 * Inserts concepts by (system, code). An existing row is updated (`update`, for release files;
 * a row that would not change is left alone) or kept as it is (`keep`, for the starter set, which
 * must never overwrite an imported release).
 */
export async function upsertConcepts(db: Db, rows: NewConcept[], existing: 'update' | 'keep' = 'update'): Promise<void> {
  if (rows.length === 0) return;
  if (existing === 'keep') {
    await db
      .insertInto('concepts')
      .values(rows)
      .onConflict((oc) => oc.columns(['system', 'code']).doNothing())
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
          updated_at: (eb) => eb.ref('excluded.updated_at'),
        })
        .where(
          sql<boolean>`concepts.display <> excluded.display OR concepts.active <> excluded.active OR coalesce(concepts.extra, '') <> coalesce(excluded.extra, '')`,
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

/** The three searches as compilable queries (tests read their plans), each with a runner below. */
export const conceptSearchQueries = {
  /** Active concepts whose code is exactly `codeKey` (upper case, letters and digits only). */
  byCodeKey: (db: Db, systems: readonly string[], codeKey: string, limit: number) =>
    db.selectFrom('concepts').select(COLUMNS).where('system', 'in', systems).where('code_key', '=', codeKey).where('active', '=', 1).limit(limit),

  /**
   * Active concepts whose display starts with `first` (a normalised word prefix), in display
   * order; at most `scan` rows of that range are looked at, of which those containing every
   * word of `rest` (as word prefixes) are kept.
   */
  byDisplayStart: (db: Db, system: string, first: string, rest: readonly string[], limit: number, scan: number) => {
    const range = db
      .selectFrom('concepts')
      .select([...COLUMNS, 'display_key', 'search_text'])
      .where('system', '=', system)
      .where('display_key', '>=', first)
      .where('display_key', '<', `${first}\u{10FFFF}`)
      .where('active', '=', 1)
      .orderBy('display_key')
      .limit(scan);
    let query = db.selectFrom(range.as('r')).select(COLUMNS);
    for (const word of rest) query = query.where(sql<boolean>`(' ' || r.search_text) LIKE ${`% ${word}%`}`);
    return query.orderBy('display_key').limit(limit);
  },

  /**
   * Active concepts containing every word (each a prefix of a word of the code or display), from
   * the full-text index; not ordered beyond what the index gives.
   */
  byWords: (engine: Engine, system: string, words: readonly string[], limit: number) => {
    if (engine === 'sqlite') {
      // Words hold only letters and digits (normalizeText), so quoting them makes each a plain prefix term.
      const match = words.map((w) => `"${w}"*`).join(' AND ');
      return sql<ConceptRow>`
        SELECT c.system, c.code, c.display, c.active, c.extra
        FROM concepts_fts f JOIN concepts c ON c.id = f.rowid
        WHERE concepts_fts MATCH ${match} AND c.system = ${system} AND c.active = 1
        LIMIT ${limit}`;
    }
    // search_words holds every prefix of up to 6 characters as a lexeme (migration 003): a word
    // that short is an exact lexeme; a longer one matches the lexemes it starts. Both read as "a
    // word starts with it" (a prefix match would also be right for short words, only slower).
    const query = words.map((w) => (w.length <= WORD_PREFIX_LEXEMES ? `'${w}'` : `'${w}':*`)).join(' & ');
    return sql<ConceptRow>`
      SELECT system, code, display, active, extra FROM concepts
      WHERE search_words @@ to_tsquery('simple', ${query}) AND system = ${system} AND active = 1
      LIMIT ${limit}`;
  },
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

export const conceptsByCodeKey = (db: Db, systems: readonly string[], codeKey: string, limit: number): Promise<ConceptRow[]> =>
  conceptSearchQueries.byCodeKey(db, systems, codeKey, limit).execute();

export const conceptsByDisplayStart = (db: Db, system: string, first: string, rest: readonly string[], limit: number, scan: number): Promise<ConceptRow[]> =>
  conceptSearchQueries.byDisplayStart(db, system, first, rest, limit, scan).execute();

export async function conceptsByWords(db: Db, engine: Engine, system: string, words: readonly string[], limit: number): Promise<ConceptRow[]> {
  return withWordIndex(db, engine, async (q) => (await conceptSearchQueries.byWords(engine, system, words, limit).execute(q)).rows);
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
