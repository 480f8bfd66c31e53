// An example handler. When a plan is committed it writes a line to the log stream
// (`charta logs --plugin {{project_slug}}`) and adds a follow-up instruction to the same note:
// a staged `instruct` command whose comment is "Follow up on: <the plan>". Change it, or add
// handlers next to it and list each one in CHARTA_MANIFEST.json.
import { BaseHandler, originateCommand, type Effect, type EventName } from '@charta/plugin-sdk';

/** The longest comment an instruct command takes. */
const COMMENT_MAX = 10000;
const PREFIX = 'Follow up on: ';

export class PlanCommittedHandler extends BaseHandler<'PLAN_COMMAND__POST_COMMIT'> {
  // The events this handler is given; the manifest's "events" lists the same names.
  static override readonly RESPONDS_TO: readonly EventName[] = ['PLAN_COMMAND__POST_COMMIT'];

  compute(): Effect[] {
    const { command, note } = this.event.context;
    const narrative = typeof command.data['narrative'] === 'string' ? command.data['narrative'].trim() : '';
    this.log.info(`plan ${command.uuid} committed by ${this.event.actor.id}: ${narrative.slice(0, 200)}`);
    if (narrative === '') return [];
    // A staged instruct in the plan's note; its comment is free text, so no terminology is needed.
    // (Committing it would need its "instruct" field picked first.)
    return [originateCommand('instruct', note.uuid, { comment: `${PREFIX}${narrative}`.slice(0, COMMENT_MAX) })];
  }
}
