// Credential rotation (docs/configuration.md, "Credentials"; docs/operations.md, "Credentials"):
// API keys and OAuth clients get an optional expiry, a revocation time and the time they were last
// used (to the minute: auth/authenticate.ts writes it at most once a minute per credential). All
// microseconds since the epoch, null for never. Existing keys and clients never expire.
import type { Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  for (const table of ['api_keys', 'oauth_clients']) {
    for (const column of ['expires_at', 'revoked_at', 'last_used_at']) {
      await db.schema.alterTable(table).addColumn(column, 'bigint').execute();
    }
  }
}
