// Plugin store operations: install, extract metadata, list, get, update, delete, download.
// Each write is one transaction with its audit row; packages are checked before it starts.
import type { Ctx } from '../context.ts';
import { nowMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import type { Page } from '../http/pagination.ts';
import { writeTransaction } from '../storage/transaction.ts';
import { isUniqueViolation } from '../storage/db.ts';
import {
  deletePlugin as removePlugin,
  getPlugin as findPlugin,
  getPluginForUpdate,
  getPluginPackage,
  insertPlugin,
  listPlugins as queryPlugins,
  replacePluginPackage,
  updatePlugin as savePlugin,
} from '../storage/plugins-repository.ts';
import { checkPackage } from './package.ts';
import { requirePluginScope, toView, type PluginView } from './representation.ts';
import type { PackageMetadata } from './inspection/index.ts';
import { logPlugin, logRejected, rejected } from '../logs/events.ts';

export async function installPlugin(ctx: Ctx, baseUrl: string, upload: { bytes?: Buffer; isEnabled: boolean }) {
  requirePluginScope(ctx);
  const pkg = await checkPackage(upload.bytes).catch(logRejected(ctx, undefined)); // log stream
  const name = pkg.metadata.name;
  try {
    const outcome = await writeTransaction<PluginView>(ctx, undefined, async ({ trx, audit }) => {
      if ((await getPluginForUpdate(trx, ctx.storage.engine, name)) !== undefined) {
        throw problem('plugin_exists', { detail: `A plugin named ${name} already exists; update it instead` });
      }
      const now = nowMicros();
      const row = {
        name,
        description: pkg.metadata.description,
        version: pkg.metadata.version,
        format: pkg.metadata.format,
        checksum: pkg.checksum,
        package: pkg.bytes,
        is_enabled: upload.isEnabled ? 1 : 0,
        previous_version: null,
        previous_format: null,
        previous_checksum: null,
        previous_package: null,
        created_at: now,
        updated_at: now,
      };
      await insertPlugin(trx, row);
      const view = toView(row, baseUrl);
      await audit({ action: 'plugin.installed', entityType: 'plugin', entityId: name, before: null, after: view });
      return { status: 201, body: view };
    });
    logPlugin(ctx, 'installed', name, outcome.body); // log stream: after the commit
    return outcome;
  } catch (err) {
    // Two installs of one new plugin at once: the loser is told it exists, like a later install.
    if (isUniqueViolation(err)) {
      throw problem('plugin_exists', { detail: `A plugin named ${name} already exists; update it instead` });
    }
    throw err;
  }
}

export async function extractMetadata(ctx: Ctx, bytes: Buffer | undefined): Promise<Omit<PackageMetadata, 'manifest'> & { package_checksum: string }> {
  requirePluginScope(ctx);
  const pkg = await checkPackage(bytes);
  const { manifest: _manifest, ...metadata } = pkg.metadata;
  return { ...metadata, package_checksum: pkg.checksum };
}

export async function listPlugins(ctx: Ctx, baseUrl: string, page: Page): Promise<{ count: number; results: PluginView[] }> {
  requirePluginScope(ctx);
  const { rows, count } = await queryPlugins(ctx.storage.reader, page.limit, page.offset);
  return { count, results: rows.map((r) => toView(r, baseUrl)) };
}

export async function getPlugin(ctx: Ctx, baseUrl: string, name: string): Promise<PluginView> {
  requirePluginScope(ctx);
  const row = await findPlugin(ctx.storage.reader, name);
  if (row === undefined) throw problem('plugin_not_found');
  return toView(row, baseUrl);
}

/** A new package and/or a new enabled flag; a package of another plugin is refused (the old one stays). */
export async function updatePlugin(ctx: Ctx, baseUrl: string, name: string, change: { bytes?: Buffer; isEnabled?: boolean }) {
  requirePluginScope(ctx);
  const pkg = change.bytes === undefined ? undefined : await checkPackage(change.bytes).catch(logRejected(ctx, name)); // log stream
  if (pkg !== undefined && pkg.metadata.name !== name) {
    throw rejected(
      ctx,
      name,
      problem('plugin_name_mismatch', { detail: `The package is plugin ${pkg.metadata.name}, not ${name}; the installed version stays live` }),
    );
  }
  const outcome = await writeTransaction<PluginView>(ctx, undefined, async ({ trx, audit }) => {
    const before = await getPluginForUpdate(trx, ctx.storage.engine, name);
    if (before === undefined) throw problem('plugin_not_found');
    const now = nowMicros();
    const enabled = change.isEnabled === undefined ? {} : { is_enabled: change.isEnabled ? 1 : 0 };
    if (pkg !== undefined) {
      await replacePluginPackage(trx, name, {
        description: pkg.metadata.description,
        version: pkg.metadata.version,
        format: pkg.metadata.format,
        checksum: pkg.checksum,
        package: pkg.bytes,
        updated_at: now,
        ...enabled,
      });
    } else if (change.isEnabled !== undefined) {
      await savePlugin(trx, name, { ...enabled, updated_at: now });
    }
    const after = (await getPluginForUpdate(trx, ctx.storage.engine, name))!;
    const view = toView(after, baseUrl);
    const action =
      pkg !== undefined ? 'plugin.updated' : change.isEnabled === true ? 'plugin.enabled' : change.isEnabled === false ? 'plugin.disabled' : 'plugin.unchanged';
    if (action !== 'plugin.unchanged') await audit({ action, entityType: 'plugin', entityId: name, before: toView(before, baseUrl), after: view });
    return { status: 200, body: view };
  });
  // Log stream, after the commit: as the audit names it.
  if (pkg !== undefined) logPlugin(ctx, 'updated', name, outcome.body);
  else if (change.isEnabled !== undefined) logPlugin(ctx, change.isEnabled ? 'enabled' : 'disabled', name, outcome.body);
  return outcome;
}

export async function deletePlugin(ctx: Ctx, baseUrl: string, name: string, force: boolean) {
  requirePluginScope(ctx);
  const outcome = await writeTransaction<null>(ctx, undefined, async ({ trx, audit }) => {
    const before = await getPluginForUpdate(trx, ctx.storage.engine, name);
    if (before === undefined) throw problem('plugin_not_found');
    if (before.is_enabled !== 0 && !force) throw problem('plugin_enabled');
    await removePlugin(trx, name);
    await audit({ action: 'plugin.deleted', entityType: 'plugin', entityId: name, before: toView(before, baseUrl), after: null });
    return { status: 204, body: null };
  });
  logPlugin(ctx, 'deleted', name); // log stream: after the commit
  return outcome;
}

export async function downloadPackage(ctx: Ctx, name: string) {
  requirePluginScope(ctx);
  const row = await getPluginPackage(ctx.storage.reader, name);
  if (row === undefined) throw problem('plugin_not_found');
  return row;
}
