// Before a prescription is committed, read its prescriber from the staff reference data and
// refuse the commit when the prescriber's credentials need a supervising provider (a nurse
// practitioner, a physician assistant) and the prescription names none. After the original
// platform's supervising-provider example, with the prescriber read through `this.data`
// (docs/plugins.md, "Reading the record"): reference data is no patient's record, so the read is
// not scoped to a patient, but it is declared (`data.read: ["reference"]`) and audited.
// `on_failure: refuse` in the manifest: a check that cannot run (the plugin failing, a read refused)
// refuses the commit rather than letting an unsupervised prescription through.
import { BaseHandler, isDataError, validationError, type Effect, type EventName } from '@charta/plugin-sdk';

/** Credentials whose holders prescribe under a supervising provider. */
export const SUPERVISED_CREDENTIALS = ['NP', 'FNP', 'APRN', 'CRNP', 'PA', 'PA-C'];

/** The staff key an autocomplete field holds (`{text, value}` as the instance stores a picked option), or null. */
export function pickedKey(field: unknown): string | null {
  if (typeof field !== 'object' || field === null) return null;
  const value = (field as { value?: unknown }).value;
  return typeof value === 'string' && value !== '' ? value : null;
}

export class SupervisingProviderCheck extends BaseHandler<'PRESCRIBE_COMMAND__PRE_COMMIT'> {
  static override readonly RESPONDS_TO: readonly EventName[] = ['PRESCRIBE_COMMAND__PRE_COMMIT'];

  override async compute(): Promise<Effect[]> {
    const data = this.event.context.command.data;
    const prescriber = pickedKey(data['prescriber']);
    // No prescriber: the instance itself refuses the commit (the field is required to commit).
    if (prescriber === null || pickedKey(data['supervising_provider']) !== null) return [];
    let credentials: string;
    try {
      const staff = await this.data.reference.staff.get(prescriber);
      credentials = typeof staff['credentials'] === 'string' ? staff['credentials'] : '';
    } catch (e) {
      // A prescriber who is not in the staff data is the instance's to refuse; anything else fails the check.
      if (isDataError(e) && e.code === 'not_found') return [];
      throw e;
    }
    if (!SUPERVISED_CREDENTIALS.includes(credentials.toUpperCase())) return [];
    this.log.info(`prescription ${this.event.target.id}: prescriber ${prescriber} (${credentials}) has no supervising provider`);
    return [
      validationError(`A prescriber with the credentials ${credentials} needs a supervising provider: set supervising_provider before committing`, {
        field: 'supervising_provider',
      }),
    ];
  }
}
