// What install and update share about grants (docs/plugins.md, "Grants"; docs/api.md, "Plugins"):
// the repeated `grant` and `revoke` fields read and checked against the one list of grants
// (runtime/grants.ts) before anything is written, the grants a plugin has after a change, the
// audit row of a change and its log stream line after the commit.
import type { Ctx } from '../context.ts';
import type { Writer } from '../storage/transaction.ts';
import { invalid } from '../http/problem.ts';
import { checkGrantNames, type Grant } from '../runtime/grants.ts';

/** The multipart / form fields that give a grant and take one back, each repeated once per name. */
export const GRANT_FIELD = 'grant';
export const REVOKE_FIELD = 'revoke';

/** Most `grant` and `revoke` fields one request may carry (each name once is far fewer). */
export const MAX_GRANT_FIELDS = 32;

export interface GrantChange {
  grant: Grant[];
  revoke: Grant[];
}

/**
 * The change the fields ask for, or a 400 naming every field that is no grant; a name both
 * granted and revoked is refused too (which one was meant is unknown).
 */
export function grantChangeOf(fields: { grant: readonly string[]; revoke: readonly string[] }): GrantChange {
  if (fields.grant.length + fields.revoke.length > MAX_GRANT_FIELDS) {
    throw invalid([{ field: GRANT_FIELD, message: `at most ${MAX_GRANT_FIELDS} grant and revoke fields may be sent at once` }]);
  }
  const change = { grant: checkGrantNames(fields.grant, GRANT_FIELD), revoke: checkGrantNames(fields.revoke, REVOKE_FIELD) };
  const both = change.grant.filter((g) => change.revoke.includes(g));
  if (both.length > 0) throw invalid(both.map((g) => ({ field: REVOKE_FIELD, message: `${g} is both granted and revoked` })));
  return change;
}

/** The grants after the change, sorted. */
export const grantsAfter = (before: readonly Grant[], change: GrantChange): Grant[] =>
  [...new Set([...before.filter((g) => !change.revoke.includes(g)), ...change.grant])].sort();

/** Whether two sorted lists of grants are the same. */
export const sameGrants = (a: readonly Grant[], b: readonly Grant[]) => a.length === b.length && a.every((g, i) => g === b[i]);

/** The audit row of an update that changed the grants (none when it changed nothing). */
export async function auditGrants(w: Pick<Writer, 'audit'>, pluginName: string, before: Grant[], after: Grant[]): Promise<void> {
  if (sameGrants(before, after)) return;
  await w.audit({ action: 'plugin.grants_changed', entityType: 'plugin', entityId: pluginName, before: { grants: before }, after: { grants: after } });
}

/** After the commit: the log stream line, when the grants changed ("plugin x grants: effects:instance (granted: effects:instance)"). */
export function grantsChanged(ctx: Ctx, pluginName: string, before: readonly Grant[], after: readonly Grant[]): void {
  if (sameGrants(before, after)) return;
  const granted = after.filter((g) => !before.includes(g));
  const revoked = before.filter((g) => !after.includes(g));
  const what = [granted.length > 0 ? `granted: ${granted.join(', ')}` : '', revoked.length > 0 ? `revoked: ${revoked.join(', ')}` : '']
    .filter(Boolean)
    .join('; ');
  ctx.logs?.emit({
    level: 'info',
    event: `plugin ${pluginName} grants: ${after.join(', ') || 'none'} (${what})`,
    plugin: pluginName,
    request_id: ctx.requestId,
  });
}
