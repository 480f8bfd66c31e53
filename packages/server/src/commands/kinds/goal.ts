// Command kind `goal`: a new patient goal.
import { goalStandingFields } from './shared-fields.ts';
import type { CommandKind } from './types.ts';
import { textOf } from '../../chart/writer.ts';

/** Goals end with these achievement statuses. */
const CLOSING = new Set(['achieved', 'not-achieved', 'not-attainable']);

/** A goal's chart status for an achievement status: closed once it ends, open otherwise. */
export const goalStatus = (achievement: unknown) => (typeof achievement === 'string' && CLOSING.has(achievement) ? 'closed' : 'open');

export const goalKind: CommandKind = {
  key: 'goal',
  label: 'Goal',
  description: 'Sets a new goal for the patient.',
  fields: [
    {
      name: 'goal_statement',
      type: 'MultiLineTextField',
      required: true,
      maxLength: 10000,
      description: 'What the goal is, in words.',
    },
    {
      name: 'start_date',
      type: 'DateField',
      required: false,
      description: 'The date work on the goal starts.',
    },
    {
      name: 'due_date',
      type: 'DateField',
      required: false,
      description: 'The date by which the goal should be achieved.',
    },
    ...goalStandingFields,
  ],
  // The goal becomes one of the patient's goals, open or closed by its achievement status.
  onCommit: async (chart, { data }) => {
    await chart.create('goal', {
      statement: String(data['goal_statement']),
      start_date: textOf(data['start_date']),
      due_date: textOf(data['due_date']),
      achievement_status: textOf(data['achievement_status']),
      priority: textOf(data['priority']),
      progress: textOf(data['progress']),
      status: goalStatus(data['achievement_status']),
    });
  },
};
