// GET /core/api/v1/commands/{uuid}
import type { Ctx } from '../context.ts';
import { problem } from '../http/problem.ts';
import { getCommand as findCommand } from '../storage/commands-repository.ts';
import { toView, type CommandView } from './representation.ts';
import { actingStaff } from '../auth/acting-staff.ts';

export async function getCommand(ctx: Ctx, uuid: string): Promise<CommandView> {
  actingStaff(ctx);
  const row = await findCommand(ctx.storage.reader, uuid);
  if (row === undefined) throw problem('command_not_found');
  return toView(row);
}
