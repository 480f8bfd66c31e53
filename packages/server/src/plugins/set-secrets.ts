// PATCH /core/api/v1/plugins/{name}/secrets/: sets and removes secrets of a plugin (`{KEY: "value" |
// null}`), in one transaction with its audit row naming only the secrets changed; every reason a
// change is refused is told at once and nothing is written (docs/api.md, "Plugin secrets").
import type { Ctx } from '../context.ts';
import { nowMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import { writeTransaction } from '../storage/transaction.ts';
import { getPluginForUpdate } from '../storage/plugins-repository.ts';
import { requirePluginScope } from './representation.ts';
import { signalPluginWrite } from './signal.ts';
import {
  secretListing,
  secretsChanged,
  secretsMoved,
  storedDeclaredSecrets,
  writeSecrets,
  type SecretChange,
  type SecretListing,
  type SecretNames,
} from './secrets.ts';

export async function setSecrets(ctx: Ctx, name: string, change: SecretChange): Promise<SecretListing> {
  requirePluginScope(ctx);
  let names: SecretNames = { set: [], removed: [] };
  const outcome = await writeTransaction<SecretListing>(ctx, undefined, async (w) => {
    if ((await getPluginForUpdate(w.trx, ctx.storage.engine, name)) === undefined) throw problem('plugin_not_found');
    const declared = await storedDeclaredSecrets(w.trx, name);
    names = await writeSecrets(w, ctx.keyring, name, change, declared, nowMicros());
    return { status: 200, body: await secretListing(w.trx, name, declared) };
  });
  secretsChanged(ctx, name, names); // log stream: after the commit
  signalPluginWrite(ctx, name, { plugin: false, secrets: secretsMoved(names) }); // the runtimes of every process
  return outcome.body;
}
