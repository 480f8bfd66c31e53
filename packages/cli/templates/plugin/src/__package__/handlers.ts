// An example handler. When a plan is committed it logs the plan, and when the plan mentions a
// follow-up it asks for a banner on the patient's chart. Change it, or add handlers next to it
// and list each one in CHARTA_MANIFEST.json.
import { addBannerAlert, BaseHandler, type Effect, type EventName } from '@charta/plugin-sdk';

export class PlanCommittedHandler extends BaseHandler<'PLAN_COMMAND__POST_COMMIT'> {
  // The events this handler is given; the manifest's "events" lists the same names.
  static override readonly RESPONDS_TO: readonly EventName[] = ['PLAN_COMMAND__POST_COMMIT'];

  compute(): Effect[] {
    const { fields, patient } = this.event.context;
    const narrative = typeof fields['narrative'] === 'string' ? fields['narrative'] : '';
    this.log.info(`plan ${this.event.target.id} committed: ${narrative}`);
    if (patient === undefined || !/follow[ -]?up/i.test(narrative)) return [];
    return [
      addBannerAlert({
        patient: patient.key,
        key: `follow-up-${this.event.target.id}`,
        narrative: 'Follow-up planned: see the committed plan',
        placement: ['chart'],
        intent: 'info',
      }),
    ];
  }
}
