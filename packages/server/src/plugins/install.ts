// POST /core/api/v1/plugins/: install a new plugin from its package, in one transaction with its
// audit row; the package is checked before it starts (docs/api.md, "Plugins").
import type { Ctx } from '../context.ts';
import { nowMicros } from '../lib/time.ts';
import { invalid, problem } from '../http/problem.ts';
import { writeTransaction } from '../storage/transaction.ts';
import { isUniqueViolation } from '../storage/errors.ts';
import { getPluginForUpdate, insertPlugin } from '../storage/plugins-repository.ts';
import { checkPackage, packageColumns, type UploadedFile } from './package.ts';
import { requirePluginScope, toView, answered, dataAccessOf, missingDataGrant, type PluginView } from './representation.ts';
import { logPlugin, logRejected } from './log-lines.ts';
import { declaredSecrets, secretsChanged, writeSecrets, type SecretChange, type SecretNames } from './secrets.ts';
import { grantsChanged, REVOKE_FIELD, type GrantChange } from './grant-change.ts';
import { signalPluginWrite } from './signal.ts';
import { grantsColumn } from '../runtime/grants.ts';

/**
 * `secrets`: set in the install's own transaction (a refused secret refuses the install).
 * `grants`: the grants given (grant-change.ts), stored with the plugin and shown by its audit row.
 */
export async function installPlugin(
  ctx: Ctx,
  baseUrl: string,
  upload: { file?: UploadedFile; isEnabled: boolean; secrets?: SecretChange; grants?: GrantChange },
) {
  requirePluginScope(ctx);
  if ((upload.grants?.revoke.length ?? 0) > 0) throw invalid([{ field: REVOKE_FIELD, message: 'a plugin being installed has no grant to revoke' }]);
  const grants = upload.grants?.grant ?? [];
  const pkg = await checkPackage(upload.file, ctx.runtime).catch(logRejected(ctx, undefined)); // log stream
  const name = pkg.metadata.name;
  const columns = packageColumns(pkg);
  // A manifest asking to read any patient runs only with the data:instance grant: installed disabled without it.
  const blocked = upload.isEnabled ? missingDataGrant(dataAccessOf(columns.data_access), grants, name) : null;
  let secretNames: SecretNames = { set: [], removed: [] };
  try {
    const outcome = await writeTransaction<PluginView>(ctx, undefined, async ({ trx, audit }) => {
      if ((await getPluginForUpdate(trx, ctx.storage.engine, name)) !== undefined) {
        throw problem('plugin_exists', { detail: `A plugin named ${name} already exists; update it instead` });
      }
      const now = nowMicros();
      const row = {
        name,
        ...columns,
        is_enabled: upload.isEnabled && blocked === null ? 1 : 0,
        previous_version: null,
        previous_format: null,
        previous_checksum: null,
        previous_package: null,
        grants: grantsColumn(grants),
        created_at: now,
        updated_at: now,
      };
      await insertPlugin(trx, row);
      const view = toView(row, baseUrl);
      await audit({ action: 'plugin.installed', entityType: 'plugin', entityId: name, before: null, after: view });
      if (upload.secrets !== undefined) secretNames = await writeSecrets({ trx, audit }, ctx.keyring, name, upload.secrets, declaredSecrets(pkg.metadata), now);
      return { status: 201, body: view };
    });
    logPlugin(ctx, 'installed', name, outcome.body); // log stream: after the commit
    if (blocked !== null) ctx.logs?.emit({ level: 'warning', event: `plugin ${blocked}`, plugin: name });
    secretsChanged(ctx, name, secretNames);
    grantsChanged(ctx, name, [], outcome.body.grants);
    signalPluginWrite(ctx, name, { plugin: true, secrets: true }); // the runtimes of every process
    return { ...outcome, body: { ...answered(ctx, outcome.body), ...(blocked === null ? {} : { notice: blocked }) } };
  } catch (err) {
    // Two installs of one new plugin at once: the loser is told it exists, like a later install.
    if (isUniqueViolation(err)) {
      throw problem('plugin_exists', { detail: `A plugin named ${name} already exists; update it instead` });
    }
    throw err;
  }
}
