// Plugin secrets sealed at rest (docs/operations.md, "Sealed secrets"): the id of the key that
// sealed each value, beside it; `value` then holds the sealed text (lib/sealing.ts), nonce
// included. A migration cannot know the key, so rows of an earlier version keep their plaintext
// with a null key id here, and the start seals them once the key is known (secret-key.ts), in one
// transaction.
import type { Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('plugin_secrets').addColumn('key_id', 'text').execute();
}
