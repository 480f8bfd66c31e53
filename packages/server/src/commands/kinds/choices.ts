// Choice lists shared by more than one command kind (goal and updateGoal).
import type { Choice } from './types.ts';

/** Goal achievement status (FHIR goal-achievement codes). */
export const achievementStatusChoices: readonly Choice[] = [
  { value: 'in-progress', text: 'In Progress' },
  { value: 'improving', text: 'Improving' },
  { value: 'worsening', text: 'Worsening' },
  { value: 'no-change', text: 'No Change' },
  { value: 'achieved', text: 'Achieved' },
  { value: 'sustaining', text: 'Sustaining' },
  { value: 'not-achieved', text: 'Not Achieved' },
  { value: 'no-progress', text: 'No Progress' },
  { value: 'not-attainable', text: 'Not Attainable' },
];

/** Goal priority (FHIR goal-priority codes). */
export const goalPriorityChoices: readonly Choice[] = [
  { value: 'high-priority', text: 'High Priority' },
  { value: 'medium-priority', text: 'Medium Priority' },
  { value: 'low-priority', text: 'Low Priority' },
];
