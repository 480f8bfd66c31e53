// PATCH /core/api/v1/plugins/{name}/: a new package and/or a new enabled flag, in one transaction
// with its audit row; the package is checked before it starts (docs/api.md, "Plugins").
import type { Ctx } from '../context.ts';
import { nowMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import { writeTransaction } from '../storage/transaction.ts';
import { getPluginForUpdate, replacePluginPackage, updatePlugin as savePlugin } from '../storage/plugins-repository.ts';
import { checkPackage, packageColumns, type UploadedFile } from './package.ts';
import { requirePluginScope, toView, answered, dataAccessOf, lastTicksOf, missingDataGrant, withLastTicks, type PluginView } from './representation.ts';
import { logPlugin, logRejected, rejected } from './log-lines.ts';
import { declaredSecrets, secretsChanged, secretsMoved, storedDeclaredSecrets, writeSecrets, type SecretChange, type SecretNames } from './secrets.ts';
import { auditGrants, grantsAfter, grantsChanged, sameGrants, type GrantChange } from './grant-change.ts';
import { signalPluginWrite } from './signal.ts';
import { grantsColumn, storedGrants, type Grant } from '../runtime/grants.ts';

/**
 * A new package and/or a new enabled flag and/or secrets (checked against the new package's
 * manifest when there is one) and/or grants given and taken back; a package of another plugin is
 * refused (the old one stays). A change of grants has its own audit row; it does not reload the
 * plugin (the runtime reads the grants with each answer).
 */
export async function updatePlugin(
  ctx: Ctx,
  baseUrl: string,
  name: string,
  change: { file?: UploadedFile; isEnabled?: boolean; secrets?: SecretChange; grants?: GrantChange },
) {
  requirePluginScope(ctx);
  const pkg = change.file === undefined ? undefined : await checkPackage(change.file, ctx.runtime).catch(logRejected(ctx, name)); // log stream
  if (pkg !== undefined && pkg.metadata.name !== name) {
    throw rejected(
      ctx,
      name,
      problem('plugin_name_mismatch', { detail: `The package is plugin ${pkg.metadata.name}, not ${name}; the installed version stays live` }),
    );
  }
  let secretNames: SecretNames = { set: [], removed: [] };
  let grants: { before: Grant[]; after: Grant[] } = { before: [], after: [] };
  /** Why the change leaves the plugin disabled though it would run: data.scope instance without data:instance. */
  let blocked: string | null = null;
  const outcome = await writeTransaction<PluginView>(ctx, undefined, async ({ trx, audit }) => {
    const before = await getPluginForUpdate(trx, ctx.storage.engine, name);
    if (before === undefined) throw problem('plugin_not_found');
    const now = nowMicros();
    const enabled = change.isEnabled === undefined ? {} : { is_enabled: change.isEnabled ? 1 : 0 };
    if (pkg !== undefined) {
      await replacePluginPackage(trx, name, { ...packageColumns(pkg), updated_at: now, ...enabled });
    } else if (change.isEnabled !== undefined) {
      await savePlugin(trx, name, { ...enabled, updated_at: now });
    }
    if (change.secrets !== undefined) {
      const declared = pkg !== undefined ? declaredSecrets(pkg.metadata) : await storedDeclaredSecrets(trx, name);
      secretNames = await writeSecrets({ trx, audit }, ctx.keyring, name, change.secrets, declared, now);
    }
    if (change.grants !== undefined) {
      const given = storedGrants(before.grants);
      grants = { before: given, after: grantsAfter(given, change.grants) };
      await savePlugin(trx, name, { grants: grantsColumn(grants.after) });
      await auditGrants({ audit }, name, grants.before, grants.after);
    }
    let after = (await getPluginForUpdate(trx, ctx.storage.engine, name))!;
    blocked = after.is_enabled !== 0 ? missingDataGrant(dataAccessOf(after.data_access), storedGrants(after.grants), name) : null;
    if (blocked !== null) {
      await savePlugin(trx, name, { is_enabled: 0, updated_at: now });
      after = (await getPluginForUpdate(trx, ctx.storage.engine, name))!;
    }
    const view = toView(after, baseUrl);
    const action =
      pkg !== undefined
        ? 'plugin.updated'
        : blocked !== null
          ? before.is_enabled !== 0
            ? 'plugin.disabled'
            : 'plugin.unchanged'
          : change.isEnabled === true
            ? 'plugin.enabled'
            : change.isEnabled === false
              ? 'plugin.disabled'
              : 'plugin.unchanged';
    if (action !== 'plugin.unchanged') await audit({ action, entityType: 'plugin', entityId: name, before: toView(before, baseUrl), after: view });
    return { status: 200, body: view };
  });
  // Log stream, after the commit: as the audit names it.
  if (pkg !== undefined) logPlugin(ctx, 'updated', name, outcome.body);
  else if (change.isEnabled !== undefined || blocked !== null) logPlugin(ctx, outcome.body.is_enabled ? 'enabled' : 'disabled', name, outcome.body);
  if (blocked !== null) ctx.logs?.emit({ level: 'warning', event: `plugin ${blocked}`, plugin: name });
  secretsChanged(ctx, name, secretNames);
  grantsChanged(ctx, name, grants.before, grants.after);
  // The runtimes of every process: one signal for the write.
  const pluginChanged = pkg !== undefined || change.isEnabled !== undefined || blocked !== null || !sameGrants(grants.before, grants.after);
  signalPluginWrite(ctx, name, { plugin: pluginChanged, secrets: secretsMoved(secretNames) });
  const view = withLastTicks(outcome.body, (await lastTicksOf(ctx, [outcome.body])).get(name));
  return { ...outcome, body: { ...answered(ctx, view), ...(blocked === null ? {} : { notice: blocked }) } };
}
