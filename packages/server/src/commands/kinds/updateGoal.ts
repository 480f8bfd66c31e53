// Command kind `updateGoal`: an update to one of the patient's open goals.
import { goalStandingFields } from './shared-fields.ts';
import type { CommandKind } from './types.ts';
import type { OptionDoc } from '../../autocomplete/types.ts';
import { textOf } from '../../chart/writer.ts';
import { goalStatus } from './goal.ts';

export const updateGoalKind: CommandKind = {
  key: 'updateGoal',
  label: 'Update goal',
  description: "Updates one of the patient's open goals.",
  fields: [
    {
      name: 'goal_statement',
      type: 'AutocompleteField',
      required: true,
      source: { kind: 'chart', entity: 'goal' },
      description: "The patient's open goal being updated.",
    },
    {
      name: 'due_date',
      type: 'DateField',
      required: false,
      description: 'The new date by which the goal should be achieved.',
    },
    ...goalStandingFields,
  ],
  // The fields given change the open goal picked; an achievement status that ends it closes it.
  onCommit: async (chart, { data }) => {
    const id = String((data['goal_statement'] as OptionDoc).value);
    const set: Record<string, unknown> = {};
    for (const field of ['due_date', 'achievement_status', 'priority', 'progress']) if (textOf(data[field]) !== null) set[field] = data[field];
    if (set['achievement_status'] !== undefined) set['status'] = goalStatus(set['achievement_status']);
    await chart.change('goal', 'goal_statement', id, set);
  },
};
