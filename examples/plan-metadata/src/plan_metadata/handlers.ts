// When a plan's narrative is changed, read a follow-up interval from it ("follow up in 2 weeks",
// "follow-up in one month") and keep it on the patient as metadata: `follow-up-interval` = `2w`,
// in the plugin's namespace (docs/plugins.md, "Patient metadata"). After the original platform's
// patient metadata example. It reads nothing of the record: the event carries the narrative.
import { BaseHandler, upsertPatientMetadata, type Effect, type EventName } from '@charta/plugin-sdk';

export const METADATA_KEY = 'follow-up-interval';

const UNITS: Record<string, string> = { day: 'd', week: 'w', month: 'm', year: 'y' };
const WORDS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twelve: 12 };
const FOLLOW_UP = /\bfollow[\s-]?up\s+(?:in|after)\s+(\d{1,3}|[a-z]+)\s+(day|week|month|year)s?\b/i;

/** `2w` for "follow up in 2 weeks", `1m` for "follow-up in a month"; null when the narrative states none. */
export function followUpInterval(narrative: string): string | null {
  const match = FOLLOW_UP.exec(narrative);
  if (!match) return null;
  const [, amount, unit] = match as unknown as [string, string, string];
  const count = /^\d+$/.test(amount) ? Number(amount) : WORDS[amount.toLowerCase()];
  if (count === undefined || count === 0) return null;
  return `${count}${UNITS[unit.toLowerCase()]}`;
}

export class FollowUpInterval extends BaseHandler<'PLAN_COMMAND__POST_UPDATE'> {
  static override readonly RESPONDS_TO: readonly EventName[] = ['PLAN_COMMAND__POST_UPDATE'];

  compute(): Effect[] {
    const { command, patient } = this.event.context;
    const narrative = typeof command.data['narrative'] === 'string' ? command.data['narrative'] : '';
    const interval = followUpInterval(narrative);
    // A plan that states no interval leaves the pair as it is: another plan of the patient may
    // have set it, and the pair is the patient's (kept even if the plugin is deleted).
    if (interval === null) return [];
    this.log.info(`plan ${command.uuid}: ${METADATA_KEY} = ${interval}`);
    // The same key again replaces the value, so each update of the plan writes one pair.
    return [upsertPatientMetadata(patient.key, METADATA_KEY, interval)];
  }
}
