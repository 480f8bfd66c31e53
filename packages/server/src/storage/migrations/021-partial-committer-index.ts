// The committer filter's index holds committed commands only (docs/performance.md, "Pages per
// write"). A command is created staged, with no committer, and a PATCH leaves it so: the index had
// an entry for every staged command all the same, which every create wrote (and, on PostgreSQL,
// whose updates write an entry in every index, every PATCH too) and no query read: the only filter
// on the column is `committed_by = ?` (committer_key), which both engines answer from a partial
// index whose condition it implies. The index is rebuilt once, at this migration.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('commands_committer').execute();
  await db.schema
    .createIndex('commands_committer')
    .on('commands')
    .columns(['committed_by', 'created_at', 'uuid'])
    .where(sql.ref('committed_by'), 'is not', null)
    .execute();
}
