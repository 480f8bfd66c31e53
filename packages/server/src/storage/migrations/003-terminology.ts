// Coded concepts of the terminologies (ICD-10-CM, RxNorm, LOINC, HCPCS, CPT, SNOMED CT), one
// row per (system, code), searchable three ways, each backed by an index on both engines:
// an exact code (code_key), the start of the display text (display_key, byte order), and words
// anywhere by prefix (SQLite FTS5 over search_text; PostgreSQL a GIN index over its tsvector).
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
  await db.schema.createIndex('concepts_display_key').on('concepts').columns(['system', 'display_key']).execute();
  if (sqlite) {
    await sql`CREATE VIRTUAL TABLE concepts_fts USING fts5(search_text, content='concepts', content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='1 2 3')`.execute(db);
    await sql`CREATE TRIGGER concepts_fts_insert AFTER INSERT ON concepts BEGIN INSERT INTO concepts_fts(rowid, search_text) VALUES (new.id, new.search_text); END`.execute(db);
    await sql`CREATE TRIGGER concepts_fts_delete AFTER DELETE ON concepts BEGIN INSERT INTO concepts_fts(concepts_fts, rowid, search_text) VALUES ('delete', old.id, old.search_text); END`.execute(db);
    await sql`CREATE TRIGGER concepts_fts_update AFTER UPDATE OF search_text ON concepts BEGIN INSERT INTO concepts_fts(concepts_fts, rowid, search_text) VALUES ('delete', old.id, old.search_text); INSERT INTO concepts_fts(rowid, search_text) VALUES (new.id, new.search_text); END`.execute(db);
  } else {
    await sql`ALTER TABLE concepts ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', search_text)) STORED`.execute(db);
    await sql`CREATE INDEX concepts_search ON concepts USING gin (search_tsv)`.execute(db);
  }
}
