// GET /core/api/v1/plugins/{name}/secrets/: the secret names a plugin declares and has set, never a
// value (docs/api.md, "Plugin secrets").
import type { Ctx } from '../context.ts';
import { problem } from '../http/problem.ts';
import { getPlugin } from '../storage/plugins-repository.ts';
import { requirePluginScope } from './representation.ts';
import { secretListing, storedDeclaredSecrets, type SecretListing } from './secrets.ts';

export async function listSecrets(ctx: Ctx, name: string): Promise<SecretListing> {
  requirePluginScope(ctx);
  const db = ctx.storage.reader;
  if ((await getPlugin(db, name)) === undefined) throw problem('plugin_not_found');
  return secretListing(db, name, await storedDeclaredSecrets(db, name));
}
