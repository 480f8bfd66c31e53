// The staff users credentials act for (docs/configuration.md, "Credentials"): created by name,
// or the default one, made on demand.
import type { Storage } from '../storage/db.ts';
import { firstStaff, insertStaff } from '../storage/auth-repository.ts';
import { newKey } from '../lib/ids.ts';
import { nowMicros } from '../lib/time.ts';

export async function createStaff(storage: Storage, name: string): Promise<string> {
  const key = newKey();
  await insertStaff(storage.db, { key, name, created_at: nowMicros() });
  return key;
}

/** The staff user credentials act for when none is named: the first one, made on demand. */
export async function defaultStaff(storage: Storage): Promise<string> {
  return (await firstStaff(storage.db))?.key ?? createStaff(storage, 'Charta Administrator');
}
