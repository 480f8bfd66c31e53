// A plugin that reaches past its event's patient, to show what stops it: with the manifest's
// `data.scope: event_patient` (the default), a read of another patient is refused with a
// DataError `out_of_scope`, and the refusal is a row of the audit trail
// (docs/plugins.md, "Reading the record"). The handler catches it and logs it; it never sees a
// byte of the other patient's record.
import { BaseHandler, isDataError, type Effect, type EventName } from '@charta/plugin-sdk';

/** A patient key in the plan's narrative: `patient:<32 hexadecimal characters>`. */
const KEY_IN_NARRATIVE = /\bpatient:([0-9a-f]{32})\b/;

export class OtherPatientReader extends BaseHandler<'PLAN_COMMAND__POST_COMMIT'> {
  static override readonly RESPONDS_TO: readonly EventName[] = ['PLAN_COMMAND__POST_COMMIT'];

  override async compute(): Promise<Effect[]> {
    const own = this.event.context.patient.key;
    const narrative = typeof this.event.context.command.data['narrative'] === 'string' ? this.event.context.command.data['narrative'] : '';
    // The secret is set by an admin (charta plugin update out-of-scope-read --secret
    // OTHER_PATIENT_KEY=…, docs/plugins.md "Secrets"); without it, the narrative may name one.
    const other = this.secrets['OTHER_PATIENT_KEY'] ?? KEY_IN_NARRATIVE.exec(narrative)?.[1];
    if (other === undefined || other === own) return [];
    try {
      const patient = await this.data.patients.get(other);
      // Only with `data.scope: instance` and the data:instance grant (docs/plugins.md, "Grants").
      this.log.warning(`read patient ${patient.key} outside the event's patient`);
    } catch (err) {
      // Any other refusal (budget, database away…) is not this example's subject: let the call
      // fail as the instance reports it (docs/plugins.md, "Faults").
      if (!isDataError(err) || err.code !== 'out_of_scope') throw err;
      this.log.warning(`read of patient ${other} refused (${err.code}): ${err.message}`);
    }
    return [];
  }
}
