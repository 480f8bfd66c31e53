// GET /core/api/v1/patients: find patients by name, paginated (docs/api.md, "GET /core/api/v1/patients").
import type { Ctx } from '../context.ts';
import { invalid, type FieldProblem } from '../http/problem.ts';
import type { List, Page } from '../http/pagination.ts';
import { listPatients as queryPatients } from '../storage/clinical-repository.ts';
import type { ListPatientsQuery, Patient } from '@charta/api';
import type { Static } from '@sinclair/typebox';
import { actingStaff } from '../auth/acting-staff.ts';
import { toView } from './representation.ts';

const MAX_WORDS = 5;

export type PatientList = List<Patient>;

export async function listPatients(ctx: Ctx, query: Static<typeof ListPatientsQuery>, page: Page, countCap: number): Promise<PatientList> {
  actingStaff(ctx);
  const errors: FieldProblem[] = [];
  const words = query.name === undefined ? [] : nameWords(query.name, errors);
  if (errors.length > 0) throw invalid(errors);
  const list = await queryPatients(ctx.storage.reader, words, page.limit, page.offset, countCap);
  return { page, hasNext: list.hasNext, count: list.count, countIsEstimate: list.countIsEstimate, results: list.rows.map(toView) };
}

/** The words of a name search, lower-cased: at least one, at most MAX_WORDS, no control character (the schema bounds its length). */
function nameWords(name: string, errors: FieldProblem[]): string[] {
  if (/[\u0000-\u001f\u007f]/.test(name)) {
    errors.push({ field: 'name', message: 'must not contain control characters' });
    return [];
  }
  const words = name
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  if (words.length === 0) errors.push({ field: 'name', message: 'must not be empty or only spaces' });
  else if (words.length > MAX_WORDS) errors.push({ field: 'name', message: `must be at most ${MAX_WORDS} words` });
  return words;
}
