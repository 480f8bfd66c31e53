// CHARTA_BOOTSTRAP_* (docs/configuration.md, "Bootstrap variables"): make sure these
// credentials work, on every start, without duplicates.
import type { Storage } from '../storage/db.ts';
import { findApiKeyByHash, getClient, updateClientSecret } from '../storage/auth-repository.ts';
import { digest, hashPassword, verifyPassword } from '../lib/secrets.ts';
import { createApiKey } from './create-api-key.ts';
import { createClient } from './create-client.ts';
import { isUniqueViolation } from '../storage/errors.ts';

/** Two processes starting together on one new database both try to create: the second finds it made. */
const madeByAnother = (err: unknown): void => {
  if (!isUniqueViolation(err)) throw err;
};

export async function ensureBootstrap(
  storage: Storage,
  config: { bootstrapApiKey?: string; bootstrapClientId?: string; bootstrapClientSecret?: string },
): Promise<void> {
  if (config.bootstrapApiKey !== undefined && (await findApiKeyByHash(storage.db, digest(config.bootstrapApiKey))) === undefined) {
    await createApiKey(storage, 'bootstrap', { value: config.bootstrapApiKey }).catch(madeByAnother);
  }
  if (config.bootstrapClientId !== undefined && config.bootstrapClientSecret !== undefined) {
    const existing = await getClient(storage.db, config.bootstrapClientId);
    if (existing === undefined) {
      await createClient(storage, { name: 'bootstrap', clientId: config.bootstrapClientId, clientSecret: config.bootstrapClientSecret }).catch(madeByAnother);
    } else if (!(await verifyPassword(config.bootstrapClientSecret, existing.secret_hash))) {
      // The operator rotated the secret in the environment: the environment wins.
      await updateClientSecret(storage.db, config.bootstrapClientId, await hashPassword(config.bootstrapClientSecret));
    }
  }
}
