// Command kind `updateGoal`: an update to one of the patient's open goals.
import { achievementStatusChoices, goalPriorityChoices } from './choices.ts';
import type { CommandKind } from './types.ts';

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
    {
      name: 'achievement_status',
      type: 'ChoiceField',
      required: false,
      choices: achievementStatusChoices,
      description: 'How far the patient is in achieving the goal.',
    },
    {
      name: 'priority',
      type: 'ChoiceField',
      required: false,
      choices: goalPriorityChoices,
      description: 'How important the goal is.',
    },
    {
      name: 'progress',
      type: 'MultiLineTextField',
      required: false,
      maxLength: 10000,
      description: 'Notes on the progress made towards the goal.',
    },
  ],
};
