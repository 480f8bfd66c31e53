// A patient's commands in one state (docs/api.md, "List commands": `patient_key` with `state`, a
// chart's committed entries): the patient index alone served the page by walking every command
// of the patient and reading each row for its state, and the page's count read them all. With
// the state in the index the page is one range and the count never reads the table.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('commands_patient_state').on('commands').columns(['patient_key', 'state', 'created_at', 'uuid']).execute();
}
