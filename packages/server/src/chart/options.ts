// Options from the patient's chart: active conditions (assess.condition), active medications
// (stopMedication.medication), open goals (updateGoal.goal_statement). An empty search term
// lists them all (the field's default list); a picked option must be one of them, of the
// command's own patient, still active.
import { listChartRows, type ChartEntity, type ChartRows } from '../storage/chart-repository.ts';
import { matchesAllWords, normalizeText, parseSearchTerm } from '../terminology/normalize.ts';
import { optionDoc } from '../autocomplete/option.ts';
import type { OptionDoc } from '../autocomplete/types.ts';
import { CodeSystems } from '@charta/api/constants';

/** The statuses in which a chart row can be picked. */
export const PICKABLE: Record<ChartEntity, string> = { condition: 'active', medication: 'active', goal: 'open' };
const NOUN: Record<ChartEntity, string> = { condition: 'condition', medication: 'medication', goal: 'open goal' };

export function chartOption<E extends ChartEntity>(entity: E, row: ChartRows[E]): OptionDoc {
  if (entity === 'goal') {
    const goal = row as ChartRows['goal'];
    return optionDoc(goal.statement, goal.id, [], { description: goal.due_date === null ? null : `due ${goal.due_date}` });
  }
  const coded = row as ChartRows['condition'] | ChartRows['medication'];
  const coding = [{ code: coded.code, display: coded.display, system: coded.system }];
  const free = coded.system === CodeSystems.UNSTRUCTURED;
  const text = entity === 'condition' && !free ? `${coded.display} (${coded.code})` : coded.display;
  const description = entity === 'medication' ? ((coded as ChartRows['medication']).sig ?? null) : null;
  return optionDoc(text, coded.id, coding, { description, annotations: free ? null : [coded.code] });
}

function searchText(option: OptionDoc): string {
  return normalizeText(`${option.text} ${option.extra.coding.map((c) => c.code).join(' ')}`);
}

export const chartSource = {
  async search(entity: ChartEntity, db: Parameters<typeof listChartRows>[0], patientKey: string, term: string, limit: number): Promise<OptionDoc[]> {
    const options = (await listChartRows(db, entity, patientKey, [PICKABLE[entity]])).map((row) => chartOption(entity, row));
    const { words } = parseSearchTerm(term);
    return options.filter((o) => words.length === 0 || matchesAllWords(searchText(o), words)).slice(0, limit);
  },

  async resolve(entity: ChartEntity, db: Parameters<typeof listChartRows>[0], patientKey: string, value: string | number): Promise<OptionDoc | string> {
    const rows = await listChartRows(db, entity, patientKey, [PICKABLE[entity]]);
    const row = rows.find((r) => r.id === String(value));
    return row === undefined
      ? `${JSON.stringify(String(value))} is not an ${entity === 'goal' ? '' : 'active '}${NOUN[entity]} of this patient`
      : chartOption(entity, row);
  },
};
