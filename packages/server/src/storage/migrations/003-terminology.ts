// Coded concepts of the terminologies (ICD-10-CM, RxNorm, LOINC, HCPCS, CPT, SNOMED CT), one
// row per (system, code), searchable three ways, each backed by an index on both engines:
// an exact code (code_key), the start of the display text (display_key, byte order), and words
// anywhere by prefix (SQLite FTS5 over search_text with prefix indexes; PostgreSQL a GIN index
// over a tsvector of its words and their short prefixes).
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const sqlite = engine === 'sqlite';
  // Small facts about the instance's own state, e.g. which starter set is loaded.
  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('concepts')
    .addColumn('id', sqlite ? 'integer' : 'bigserial', (c) => c.primaryKey())
    .addColumn('system', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('code_key', 'text', (c) => c.notNull())
    .addColumn('display', 'text', (c) => c.notNull())
    // Compared byte by byte so a prefix is one contiguous range of the index.
    .addColumn('display_key', 'text', (c) => (sqlite ? c.notNull() : c.notNull().modifyEnd(sql`COLLATE "C"`)))
    .addColumn('search_text', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('extra', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('concepts_system_code', ['system', 'code'])
    .execute();
  await db.schema.createIndex('concepts_code_key').on('concepts').columns(['system', 'code_key']).execute();
  // On SQLite the display-start index also covers active and search_text, so the other words of a
  // multi-word term are checked on index entries, before any table row is read.
  await db.schema
    .createIndex('concepts_display_key')
    .on('concepts')
    .columns(sqlite ? ['system', 'display_key', 'active', 'search_text'] : ['system', 'display_key'])
    .execute();
  if (sqlite) {
    // Prefix indexes for 1–6 characters: a prefix query of that length reads one doclist
    // incrementally (and stops at the LIMIT); a longer prefix makes FTS5 merge the doclists of
    // every matching word in full first (6–15 ms for a 4–5 letter prefix of 300k concepts).
    await sql`CREATE VIRTUAL TABLE concepts_fts USING fts5(search_text, content='concepts', content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='1 2 3 4 5 6')`.execute(
      db,
    );
    await sql`CREATE TRIGGER concepts_fts_insert AFTER INSERT ON concepts BEGIN INSERT INTO concepts_fts(rowid, search_text) VALUES (new.id, new.search_text); END`.execute(
      db,
    );
    await sql`CREATE TRIGGER concepts_fts_delete AFTER DELETE ON concepts BEGIN INSERT INTO concepts_fts(concepts_fts, rowid, search_text) VALUES ('delete', old.id, old.search_text); END`.execute(
      db,
    );
    await sql`CREATE TRIGGER concepts_fts_update AFTER UPDATE OF search_text ON concepts BEGIN INSERT INTO concepts_fts(concepts_fts, rowid, search_text) VALUES ('delete', old.id, old.search_text); INSERT INTO concepts_fts(rowid, search_text) VALUES (new.id, new.search_text); END`.execute(
      db,
    );
  } else {
    // Every word of search_text as a lexeme, and its prefixes of 1–6 characters as lexemes of
    // their own: a query word of up to 6 characters is then one exact entry of the GIN index
    // (AND-ed entries skip through each other's posting lists), where a prefix match (`lef:*`)
    // must first OR the posting lists of every lexeme it covers into a bitmap — 20–40 ms for
    // two short common prefixes over 300k concepts. Longer words still match by prefix.
    await sql`
      CREATE FUNCTION concept_search_words(t text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT coalesce(array_to_tsvector(array_agg(DISTINCT w)), ''::tsvector) FROM (
          SELECT v.lexeme AS w FROM unnest(to_tsvector('simple', t)) AS v
          UNION ALL
          SELECT left(v.lexeme, n) FROM unnest(to_tsvector('simple', t)) AS v, generate_series(1, 6) AS n WHERE n < length(v.lexeme)
        ) words
      $$`.execute(db);
    await sql`ALTER TABLE concepts ADD COLUMN search_words tsvector GENERATED ALWAYS AS (concept_search_words(search_text)) STORED`.execute(db);
    await sql`CREATE INDEX concepts_search_words ON concepts USING gin (search_words)`.execute(db);
  }
}
