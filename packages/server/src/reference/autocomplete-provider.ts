// Options from the reference data of the instance (src/reference/): staff, lab partners and
// their tests, pharmacies, reason-for-visit codings, questionnaires, educational materials and
// their languages, dispense units. Searches go through the reference search index (indexed on
// both engines), and an empty term lists the first entries in display order; a picked value is
// looked up by its id (or natural code) and replaced by the catalogue's option — the client's
// text is never stored. Registered with the autocomplete framework when the app is assembled
// (src/autocomplete-providers.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import * as repo from '../storage/reference-repository.ts';
import { inOrder, isEmptyTerm, searchIds } from './search-index.ts';
import { IndexSystems } from './systems.ts';
import { STAFF_ROLES } from '@charta/api/constants';
import {
  dispenseUnitOption,
  labPartnerOption,
  labTestOption,
  languageOption,
  materialLanguages,
  materialOption,
  pharmacyOption,
  questionnaireOption,
  reasonForVisitOption,
  staffOption,
  staffText,
} from './options.ts';
import { languageName } from '@charta/api/constants';
import { matchesAllWords, normalizeText, parseSearchTerm } from '../terminology/normalize.ts';
import { codingsOf } from '../autocomplete/option.ts';
import type { OptionDoc, OptionProvider, OptionProviders, OptionSource, PickedOption, SourceContext } from '../autocomplete/types.ts';

type Source<K extends OptionSource['kind']> = Extract<OptionSource, { kind: K }>;
type Db = Kysely<Database>;

const shown = (picked: PickedOption) => JSON.stringify(String(picked.value).slice(0, 100));

/** The catalogue rows a search of the reference index finds, in the index's order. */
async function searchRows<R>(
  ctx: SourceContext,
  systems: string[],
  term: string,
  limit: number,
  byIds: (db: Db, ids: string[]) => Promise<R[]>,
  idOf: (row: R) => string,
) {
  const ids = await searchIds(ctx.db, ctx.engine, systems, term, limit);
  return inOrder(ids, await byIds(ctx.db, ids), idOf);
}

/** A catalogue row named by its id, else by its natural name (the original takes either). */
async function byIdOrName<R>(
  db: Db,
  value: string,
  byId: (db: Db, v: string) => Promise<R | undefined>,
  byName: (db: Db, v: string) => Promise<R | undefined>,
) {
  return (await byId(db, value)) ?? (await byName(db, value));
}

/** The value of another field of the command (a picked option, or the stored one), as text. */
function valueOf(data: Record<string, unknown>, field: string): string | undefined {
  const v = data[field];
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const value = (v as { value?: unknown }).value;
    return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  }
  return undefined;
}

const partnerOf = async (db: Db, data: Record<string, unknown>, field: string) => {
  const v = valueOf(data, field);
  return v === undefined ? undefined : byIdOrName(db, v, repo.labPartnerById, repo.labPartnerByName);
};

const materialOf = async (db: Db, data: Record<string, unknown>, field: string) => {
  const v = valueOf(data, field);
  return v === undefined ? undefined : byIdOrName(db, v, repo.materialById, repo.materialByTitle);
};

export const staffProvider: OptionProvider<Source<'staff'>> = {
  async search(source, ctx, term, limit) {
    const systems = source.role !== undefined ? [IndexSystems.staff(source.role)] : STAFF_ROLES.map(IndexSystems.staff);
    return (await searchRows(ctx, systems, term, limit, repo.staffByKeys, (r) => r.key)).filter((r) => r.active === 1).map(staffOption);
  },
  async resolve(source, ctx, picked) {
    const row = await repo.staffByKey(ctx.db, String(picked.value));
    if (row === undefined) return `${shown(picked)} is not a staff member of this instance`;
    if (row.active !== 1) return `${staffText(row)} is no longer active`;
    if (source.role !== undefined && row.role !== source.role) return `${staffText(row)} is not a ${source.role} (role ${row.role})`;
    return staffOption(row);
  },
};

/**
 * A catalogue searched through the reference index and picked by id or by name, with no field it
 * depends on: lab partners, educational materials.
 */
function catalogueProvider<R, K extends OptionSource['kind']>(c: {
  system: string;
  byIds: (db: Db, ids: string[]) => Promise<R[]>;
  byId: (db: Db, v: string) => Promise<R | undefined>;
  byName: (db: Db, v: string) => Promise<R | undefined>;
  idOf: (row: R) => string;
  option: (row: R) => OptionDoc;
  /** "a lab partner": what a wrong pick is not. */
  noun: string;
}): OptionProvider<Source<K>> {
  return {
    search: async (_source, ctx, term, limit) => (await searchRows(ctx, [c.system], term, limit, c.byIds, c.idOf)).map(c.option),
    async resolve(_source, ctx, picked) {
      const row = await byIdOrName(ctx.db, String(picked.value), c.byId, c.byName);
      return row === undefined ? `${shown(picked)} is not ${c.noun} of this instance` : c.option(row);
    },
  };
}

export const labPartnerProvider = catalogueProvider<repo.LabPartnerRow, 'labPartner'>({
  system: IndexSystems.labPartner,
  byIds: repo.labPartnersByIds,
  byId: repo.labPartnerById,
  byName: repo.labPartnerByName,
  idOf: (r) => r.id,
  option: labPartnerOption,
  noun: 'a lab partner',
});

export const labTestProvider: OptionProvider<Source<'labTest'>> = {
  async search(source, ctx, term, limit) {
    const partner = await partnerOf(ctx.db, ctx.data, source.partnerField);
    if (partner === undefined) return []; // no partner chosen: no tests to offer
    return (await searchRows(ctx, [IndexSystems.labTest(partner.id)], term, limit, repo.labTestsByIds, (r) => r.id)).map(labTestOption);
  },
  async resolve(source, ctx, picked) {
    const v = String(picked.value);
    const partner = await partnerOf(ctx.db, ctx.data, source.partnerField);
    const byId = await repo.labTestById(ctx.db, v);
    if (partner === undefined) {
      return byId !== undefined
        ? `"${byId.name}" is a test of another lab partner (no ${source.partnerField} is chosen: pick it first)`
        : `${shown(picked)} is not a lab test of this instance (and no ${source.partnerField} is chosen)`;
    }
    if (byId !== undefined)
      return byId.partner_id === partner.id ? labTestOption(byId) : `"${byId.name}" is a test of another lab partner, not of ${partner.name}`;
    // The original also takes the partner's order code.
    const byCode = await repo.labTestByOrderCode(ctx.db, partner.id, v);
    return byCode !== undefined ? labTestOption(byCode) : `${shown(picked)} is not a test of ${partner.name}`;
  },
};

export const pharmacyProvider: OptionProvider<Source<'pharmacy'>> = {
  async search(_source, ctx, term, limit) {
    return (await searchRows(ctx, [IndexSystems.pharmacy], term, limit, repo.pharmaciesByIds, (r) => r.ncpdp_id)).map(pharmacyOption);
  },
  async resolve(_source, ctx, picked) {
    const row = await repo.pharmacyById(ctx.db, String(picked.value));
    return row === undefined ? `${shown(picked)} is not the NCPDP id of a pharmacy of this instance` : pharmacyOption(row);
  },
};

export const reasonForVisitProvider: OptionProvider<Source<'reasonForVisit'>> = {
  async search(_source, ctx, term, limit) {
    return (await searchRows(ctx, [IndexSystems.reasonForVisit], term, limit, repo.reasonsForVisitByIds, (r) => r.id)).map(reasonForVisitOption);
  },
  async resolve(_source, ctx, picked) {
    const byId = await repo.reasonForVisitById(ctx.db, String(picked.value));
    if (byId !== undefined) return reasonForVisitOption(byId);
    // A coding of the instance's list, named by system and code.
    for (const { system, code } of codingsOf(picked)) {
      const row = await repo.reasonForVisitByCode(ctx.db, system, code);
      if (row !== undefined) return reasonForVisitOption(row);
    }
    return `${shown(picked)} is not a reason-for-visit coding of this instance`;
  },
};

async function withQuestions(db: Db, rows: repo.QuestionnaireRow[]): Promise<OptionDoc[]> {
  const questions = await repo.questionsOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) =>
    questionnaireOption(
      r,
      questions.filter((q) => q.questionnaire_id === r.id),
    ),
  );
}

export const questionnaireProvider: OptionProvider<Source<'questionnaire'>> = {
  async search(_source, ctx, term, limit) {
    // An empty term: the instance's questionnaires, by name (the field's default list).
    if (isEmptyTerm(term)) return withQuestions(ctx.db, await repo.questionnairesByName(ctx.db, limit));
    return withQuestions(ctx.db, await searchRows(ctx, [IndexSystems.questionnaire], term, limit, repo.questionnairesByIds, (r) => r.id));
  },
  async resolve(_source, ctx, picked) {
    const v = String(picked.value);
    const row = await byIdOrName(ctx.db, v, repo.questionnaireById, repo.questionnaireByCode);
    if (row === undefined) return `${shown(picked)} is not a questionnaire of this instance`;
    return (await withQuestions(ctx.db, [row]))[0]!;
  },
};

export const educationalMaterialProvider = catalogueProvider<repo.MaterialRow, 'educationalMaterial'>({
  system: IndexSystems.educationalMaterial,
  byIds: repo.materialsByIds,
  byId: repo.materialById,
  byName: repo.materialByTitle,
  idOf: (r) => r.id,
  option: materialOption,
  noun: 'an educational material',
});

export const materialLanguageProvider: OptionProvider<Source<'materialLanguage'>> = {
  // A material has a handful of languages (at most 26): they are filtered here, not searched;
  // an empty term lists them in the material's order.
  async search(source, ctx, term, limit) {
    const material = await materialOf(ctx.db, ctx.data, source.materialField);
    if (material === undefined) return [];
    if (isEmptyTerm(term)) return materialLanguages(material).slice(0, limit).map(languageOption);
    const { words } = parseSearchTerm(term);
    if (words.length === 0) return [];
    const matching = materialLanguages(material).filter((code) => matchesAllWords(normalizeText(`${code} ${languageName(code)}`), words));
    const first = words[0]!;
    const starts = (code: string) => normalizeText(languageName(code)).startsWith(first) || code.startsWith(first);
    return [...matching.filter(starts), ...matching.filter((c) => !starts(c))].slice(0, limit).map(languageOption);
  },
  async resolve(source, ctx, picked) {
    const material = await materialOf(ctx.db, ctx.data, source.materialField);
    if (material === undefined) return `pick ${source.materialField} first: the languages are those of the chosen material`;
    const code = String(picked.value).toLowerCase();
    return materialLanguages(material).includes(code)
      ? languageOption(code)
      : `${shown(picked)} is not a language of "${material.title}" (${materialLanguages(material).join(', ')})`;
  },
};

export const dispenseUnitProvider: OptionProvider<Source<'dispenseUnit'>> = {
  async search(_source, ctx, term, limit) {
    return (await searchRows(ctx, [IndexSystems.dispenseUnit], term, limit, repo.dispenseUnitsByCodes, (r) => r.code)).map(dispenseUnitOption);
  },
  async resolve(_source, ctx, picked) {
    const row = await repo.dispenseUnitByCode(ctx.db, String(picked.value).toUpperCase());
    return row === undefined ? `${shown(picked)} is not a dispense unit (NCPDP quantity unit of measure code) of this instance` : dispenseUnitOption(row);
  },
};

/** The source kinds the reference data provides. */
export const referenceOptionProviders: Pick<
  OptionProviders,
  'staff' | 'labPartner' | 'labTest' | 'pharmacy' | 'reasonForVisit' | 'questionnaire' | 'educationalMaterial' | 'materialLanguage' | 'dispenseUnit'
> = {
  staff: staffProvider,
  labPartner: labPartnerProvider,
  labTest: labTestProvider,
  pharmacy: pharmacyProvider,
  reasonForVisit: reasonForVisitProvider,
  questionnaire: questionnaireProvider,
  educationalMaterial: educationalMaterialProvider,
  materialLanguage: materialLanguageProvider,
  dispenseUnit: dispenseUnitProvider,
};
