// The grants an administrator may give a plugin (docs/plugins.md, "Grants"): each widens what the
// plugin may do past its default reach, and nothing else does. Their one list is in @charta/api;
// here: checking names, the stored column. Install and update accept only these names, the plugin
// object shows them, the runtime reads them.
import { invalid, type FieldProblem } from '../http/problem.ts';

import { GRANT_NAMES, GRANTS, type Grant } from '@charta/api/constants';

export { GRANT_NAMES, type Grant };

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
