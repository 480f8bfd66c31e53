// The staff user a Commands API call acts for. Only OAuth tokens (bound to a staff user) may
// write clinical data; API keys are for the plugin tool.
import type { Principal } from './principal.ts';
import { problem } from '../http/problem.ts';

/** The scope a token needs for clinical data (what a client gets when it asks for no scope). */
export const CLINICAL_SCOPE = 'user/*.*';

export function actingStaff(ctx: { principal: Principal }): string {
  if (ctx.principal.kind !== 'token' || ctx.principal.staffKey === null) {
    throw problem('forbidden', { detail: 'The Commands, Notes and Patients APIs take an OAuth bearer token (POST /auth/token/), not an API key' });
  }
  if (!ctx.principal.scopes.includes(CLINICAL_SCOPE)) {
    throw problem('forbidden', { detail: `This token lacks the scope ${CLINICAL_SCOPE} that the Commands, Notes and Patients APIs need` });
  }
  return ctx.principal.staffKey;
}
