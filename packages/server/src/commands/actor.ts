// The staff user a Commands API call acts for. Only OAuth tokens (bound to a staff user) may
// write clinical data; API keys are for the plugin tool.
import type { Ctx } from '../lib/context.ts';
import { problem } from '../http/problem.ts';

export function actingStaff(ctx: Ctx): string {
  if (ctx.principal.kind !== 'token' || ctx.principal.staffKey === null) {
    throw problem('forbidden', { detail: 'The Commands, Notes and Patients APIs take an OAuth bearer token (POST /auth/token/), not an API key' });
  }
  return ctx.principal.staffKey;
}
