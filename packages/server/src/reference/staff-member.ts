// GET /core/api/v1/staff/{key} (docs/api.md, "Staff"): one staff member by key, for the clinical
// pages to name who wrote or committed a command. A clinical read: an OAuth token with the clinical
// scope, like the patients it sits beside.
import type { Ctx } from '../context.ts';
import type { StaffMember } from '@charta/api';
import { KEY_RE } from '../lib/ids.ts';
import { problem } from '../http/problem.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { getStaff } from '../storage/auth-repository.ts';

export async function readStaffMember(ctx: Ctx, key: string): Promise<StaffMember> {
  actingStaff(ctx);
  const row = KEY_RE.test(key) ? await getStaff(ctx.storage.reader, key) : undefined;
  if (row === undefined) throw problem('staff_not_found');
  const named = `${row.first_name} ${row.last_name}`.trim();
  return { key: row.key, name: named === '' ? row.name : named, credentials: row.credentials, role: row.role, active: row.active === 1 };
}
