// When a lab order is committed, look for a plan in its note; when there is none, add a staged
// instruct to the note so that someone follows up on the results. After the original platform's
// lab order follow-up example.
import { BaseHandler, originateCommand, type Effect, type EventName } from '@charta/plugin-sdk';

/** The longest comment an instruct command takes. */
const COMMENT_MAX = 10000;
/** Plans looked at in one read: a note with more has a plan anyway. */
const PLANS_READ = 100;

/** The names of the ordered tests: `tests` holds the picked options, `{text, value, extra}` each. */
function testNames(tests: unknown): string[] {
  if (!Array.isArray(tests)) return [];
  return tests.map((t) => (t !== null && typeof t === 'object' ? (t as { text?: unknown }).text : undefined)).filter((t): t is string => typeof t === 'string');
}

export class LabOrderFollowUp extends BaseHandler<'LAB_ORDER_COMMAND__POST_COMMIT'> {
  static override readonly RESPONDS_TO: readonly EventName[] = ['LAB_ORDER_COMMAND__POST_COMMIT'];

  override async compute(): Promise<Effect[]> {
    const { command, note } = this.event.context;
    // One read of the note's plans; without patient_key it lists the event's patient's, the only
    // one this plugin may read (docs/plugins.md, "Reading the record"). A POST handler reads the
    // committed record, so a plan committed before the lab order is there.
    const plans = await this.data.commands.list({ note_key: note.uuid, schema_key: 'plan', limit: PLANS_READ });
    // A plan entered in error plans nothing; a staged one is the clinician's plan in the making.
    const live = plans.results.filter((p) => p.state !== 'entered_in_error');
    if (live.length > 0) {
      this.log.info(`lab order ${command.uuid}: the note has ${live.length} plan(s), no follow-up added`);
      return [];
    }
    const tests = testNames(command.data['tests']);
    const comment = `Follow up on the lab results${tests.length ? ` (${tests.join(', ')})` : ''}: this note has no plan.`;
    this.log.info(`lab order ${command.uuid}: no plan in note ${note.uuid}, follow-up instruction added`);
    // Left staged: its "instruct" field (a coded pick) is the clinician's to choose before committing.
    return [originateCommand('instruct', note.uuid, { comment: comment.slice(0, COMMENT_MAX) })];
  }
}
