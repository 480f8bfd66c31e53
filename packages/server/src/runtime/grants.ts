// The grants an administrator may give a plugin (docs/plugins.md, "Grants"): each widens what the
// plugin may do past its default reach, and nothing else does. This is the one list of them: install
// and update accept only these names, the plugin object shows them, the runtime reads them.
import { invalid, type FieldProblem } from '../http/problem.ts';

export const GRANTS = {
  'effects:any-command': 'Effects may commit, enter in error, edit or delete commands the plugin did not originate (of the patients it may reach).',
  'effects:instance': "Effects may reach any patient of the instance, not only the event's.",
} as const satisfies Record<string, string>;

export type Grant = keyof typeof GRANTS;

/** Every grant name, sorted. */
export const GRANT_NAMES = (Object.keys(GRANTS) as Grant[]).sort();

export const isGrant = (name: string): name is Grant => Object.hasOwn(GRANTS, name);

/**
 * The grants of a plugin's stored `grants` column (a JSON list), sorted. A name this version does
 * not know (nor any malformed value) grants nothing, so it is left out.
 */
export function storedGrants(text: string | null | undefined): Grant[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? '[]');
  } catch {
    return [];
  }
  return Array.isArray(parsed) ? [...new Set(parsed.filter((g): g is Grant => typeof g === 'string' && isGrant(g)))].sort() : [];
}

/** The `grants` column of these grants. */
export const grantsColumn = (grants: readonly Grant[]): string => JSON.stringify([...new Set(grants)].sort());

/**
 * The grants these names ask for, sorted; a 400 `validation_failed` naming every name that is no
 * grant (`field[i]`) and the known ones.
 */
export function checkGrantNames(names: readonly string[], field: string): Grant[] {
  const errors: FieldProblem[] = [];
  names.forEach((name, i) => {
    if (!isGrant(name)) {
      errors.push({ field: `${field}[${i}]`, message: `${JSON.stringify(name.slice(0, 64))} is not a grant; the grants are ${GRANT_NAMES.join(', ')}` });
    }
  });
  if (errors.length > 0) throw invalid(errors);
  return [...new Set(names as Grant[])].sort();
}
